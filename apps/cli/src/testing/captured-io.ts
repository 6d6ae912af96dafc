/** The CLI's output captured for one run: what a spec hands `runCli` as its `io`, and what it wrote. */
export function capturedIo() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: { write: (text: string) => out.push(text), isTTY: false },
      stderr: { write: (text: string) => err.push(text), isTTY: false },
    },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}
