/**
 * A DNS responder for tests (domain verification): UDP on 127.0.0.1, answering TXT questions
 * from a table the test fills; unknown names are NXDOMAIN. Just enough of RFC 1035 for node's
 * resolver (`dns.promises.Resolver` with `setServers(['127.0.0.1:<port>'])`). Not used by the service.
 */
import { createSocket, type Socket } from 'node:dgram';

const TXT = 16;
const IN = 1;

export class FakeDns {
  /** Lower-case name → TXT records (each a string, split into 255-byte chunks on the wire). */
  readonly records = new Map<string, string[]>();
  private constructor(
    private readonly socket: Socket,
    readonly port: number,
  ) {}

  static async start(): Promise<FakeDns> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => resolve());
    });
    const dns = new FakeDns(socket, socket.address().port);
    socket.on('message', (message, remote) => {
      const answer = dns.answer(message);
      if (answer) socket.send(answer, remote.port, remote.address);
    });
    return dns;
  }

  /** For `DNS_SERVERS` or `Resolver#setServers`. */
  get server(): string {
    return `127.0.0.1:${this.port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private answer(query: Buffer): Buffer | null {
    if (query.length < 12) return null;
    let offset = 12;
    const labels: string[] = [];
    while (offset < query.length && query[offset] !== 0) {
      const length = query[offset];
      labels.push(query.subarray(offset + 1, offset + 1 + length).toString('ascii'));
      offset += 1 + length;
    }
    const questionEnd = offset + 5;
    if (questionEnd > query.length) return null;
    const type = query.readUInt16BE(offset + 1);
    const name = labels.join('.').toLowerCase();
    const records = this.records.get(name);
    const answers = records && type === TXT ? records.map(txtAnswer) : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    // QR, opcode 0, RD copied, RA; RCODE 3 (NXDOMAIN) for unknown names.
    header.writeUInt16BE(0x8080 | (query.readUInt16BE(2) & 0x0100) | (records ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
  }
}

function txtAnswer(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length || chunks.length === 0; at += 255) {
    const chunk = bytes.subarray(at, at + 255);
    chunks.push(Buffer.concat([Buffer.from([chunk.length]), chunk]));
  }
  const data = Buffer.concat(chunks);
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  fixed.writeUInt16BE(TXT, 2);
  fixed.writeUInt16BE(IN, 4);
  fixed.writeUInt32BE(60, 6);
  fixed.writeUInt16BE(data.length, 10);
  return Buffer.concat([fixed, data]);
}
