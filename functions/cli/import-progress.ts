/**
 * What `npm run data -- import` shows while it works, on stderr (stdout carries the JSON summary): on
 * a terminal, one progress bar per file, redrawn in place; otherwise (a pipe, CI, a log file) a plain
 * line per file when it is done. Bad lines are always printed in full, one per line, with their file
 * and line number.
 */
import type {
  BadLine,
  FileSummary,
  ImportEvents,
} from '../../shared/sources/dataset/database/import-dataset.js';

const BAR_WIDTH = 30;

export function importProgress(stream: NodeJS.WriteStream = process.stderr): ImportEvents {
  const terminal = stream.isTTY === true;
  let size = 0;
  let drawn = false;
  const clear = () => {
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };
  const draw = (file: string, lines: number, bytes: number) => {
    if (!terminal) return;
    const share = size > 0 ? Math.min(1, bytes / size) : 1;
    const filled = Math.round(share * BAR_WIDTH);
    clear();
    stream.write(
      `${file.padEnd(26)} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(Math.round(share * 100)).padStart(3)}%  ${lines.toLocaleString('en')} lines`,
    );
    drawn = true;
  };
  return {
    fileStarted(file, bytes) {
      size = bytes;
      draw(file, 0, 0);
    },
    progress: draw,
    badLine({ file, line, problem }: BadLine) {
      clear();
      stream.write(`${file}:${line}: skipped: ${problem}\n`);
    },
    fileDone({ file, imported, skipped }: FileSummary) {
      clear();
      stream.write(
        `${file.padEnd(26)} ${imported.toLocaleString('en')} imported, ${skipped.toLocaleString('en')} skipped\n`,
      );
    },
  };
}
