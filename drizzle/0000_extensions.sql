-- pgvector provides halfvec and the HNSW/IVF indexes used for memory embeddings.
CREATE EXTENSION IF NOT EXISTS vector;
