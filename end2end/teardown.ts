import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The run's journals (playwright.config.ts) go with it: a machine that runs
// the suite all day must not fill its disk with them. Only a directory the
// config made is removed, never one given in the environment.
export default function teardown() {
  const dir = process.env.LLMGW_E2E_DATA;
  if (dir?.startsWith(join(tmpdir(), 'llmgw-e2e-'))) rmSync(dir, { recursive: true, force: true });
}
