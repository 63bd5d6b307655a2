#!/usr/bin/env node
// `npx mnemo <command>`: the CLI is TypeScript, run through tsx like `npm start`.
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
