// A process that starts one durable blob write and does nothing else: it must live until the write
// is answered, then exit on its own (durable-writes.spec.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DurableWrites } from '#blob-store/fs/durable-writes';

const [root] = process.argv.slice(2);
mkdirSync(join(root, 'tmp'), { recursive: true });
void new DurableWrites()
  .write(root, join(root, 'tmp', 'child.tmp'), join(root, 'ab', 'cd', 'child'), Buffer.from('from a child'))
  .then(() => console.log('written'));
