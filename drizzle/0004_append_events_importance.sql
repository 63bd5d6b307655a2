-- append_session_events also stores each event's rule-based importance (M6).
CREATE OR REPLACE FUNCTION append_session_events(p_session_id uuid, p_events jsonb)
RETURNS TABLE (id uuid, seq integer, app_id text, user_id text, last_seq integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_count integer := jsonb_array_length(p_events);
  v_session record;
BEGIN
  UPDATE sessions AS s
     SET last_seq = s.last_seq + v_count, last_event_at = now(), updated_at = now()
   WHERE s.id = p_session_id AND s.ended_at IS NULL
  RETURNING s.app_id, s.user_id, s.last_seq INTO v_session;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  RETURN QUERY
  INSERT INTO session_events AS ev
    (id, session_id, app_id, user_id, seq, type, role, content, data, token_count, importance, idempotency_key, request_hash, occurred_at)
  SELECT e.id, p_session_id, v_session.app_id, v_session.user_id, v_session.last_seq - v_count + e.ord, e.type, e.role,
         e.content, e.data, e.token_count, coalesce(e.importance, 0), e.idempotency_key, e.request_hash, coalesce(e.occurred_at, now())
    FROM jsonb_to_recordset(p_events) AS e(
           id uuid, ord integer, type text, role text, content text, data jsonb, token_count integer, importance real,
           idempotency_key text, request_hash text, occurred_at timestamptz)
  RETURNING ev.id, ev.seq, ev.app_id, ev.user_id, v_session.last_seq;
END;
$$;
