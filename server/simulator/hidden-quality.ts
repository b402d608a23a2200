// Hidden per-cell quality of simulated models, and the judge that reads it back.
//
// The simulator knows nothing of the gateway's routing cells; a test marks a cell by text in its
// prompts (`whenContains`, e.g. "[cell qa/complex]") and gives each model a quality there, which
// may change at a time on the simulator's clock (a model that degrades midway). An answer carries
// the quality it was given with ("[quality 4.40]"), as a real answer carries its merits: a judge
// grading it later, even after the model changed, grades the answer as it was. The grade is that
// quality plus seeded noise, rounded to 1-5, so evidence needs enough samples to be sure.
import { mulberry32 as seededRandom } from './faults.js';
import type { CellQuality } from './types.js';

const TAG = /\[quality (\d+(?:\.\d+)?)\]/g;

export class HiddenQuality {
  private entries: CellQuality[] = [];
  private noiseSd = 0;
  private random: () => number;

  constructor(
    seed: number,
    private now: () => number = Date.now,
  ) {
    this.random = seededRandom(seed);
  }

  configure(p: { cellQualities?: CellQuality[]; gradeNoise?: number; now?: () => number; seed?: number }): void {
    if (p.cellQualities !== undefined) {
      if (
        !Array.isArray(p.cellQualities) ||
        !p.cellQualities.every(
          (e) =>
            typeof e?.model === 'string' &&
            typeof e.quality === 'number' &&
            e.quality >= 1 &&
            e.quality <= 5 &&
            (e.whenContains === undefined || typeof e.whenContains === 'string') &&
            (e.from === undefined || typeof e.from === 'number'),
        )
      )
        throw new TypeError('cellQualities must be an array of {model, quality 1-5, whenContains?, from?}');
      this.entries = p.cellQualities.map((e) => ({ ...e }));
    }
    if (p.gradeNoise !== undefined) {
      if (typeof p.gradeNoise !== 'number' || !(p.gradeNoise >= 0)) throw new TypeError('gradeNoise must be >= 0');
      this.noiseSd = p.gradeNoise;
    }
    if (typeof p.now === 'function') this.now = p.now;
    if (p.seed !== undefined) this.random = seededRandom(p.seed);
  }

  /** The quality `model` answers `prompt` with now: the last matching entry whose time has come. */
  qualityOf(model: string, prompt: string): number | undefined {
    if (this.entries.length === 0) return undefined;
    const t = this.now();
    let q: number | undefined;
    for (const e of this.entries)
      if (
        e.model === model &&
        (e.whenContains === undefined || prompt.includes(e.whenContains)) &&
        (e.from === undefined || e.from <= t)
      )
        q = e.quality;
    return q;
  }

  /** The quality an answer was given with (its last tag), if it carries one. */
  static taggedQuality(text: string): number | undefined {
    let last: string | undefined;
    for (const m of text.matchAll(TAG)) last = m[1];
    return last === undefined ? undefined : Number(last);
  }

  static tag(quality: number): string {
    return `[quality ${quality.toFixed(2)}]`;
  }

  /** A judge's grade of an answer of this quality: plus seeded Gaussian noise, rounded into 1-5. */
  grade(quality: number): number {
    let g = quality;
    if (this.noiseSd > 0) {
      // Box-Muller from the seeded stream.
      const u = Math.max(this.random(), 1e-12);
      const v = this.random();
      g += this.noiseSd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
    return Math.min(5, Math.max(1, Math.round(g)));
  }
}
