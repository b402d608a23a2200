// Summary of a V8 .cpuprofile: where the busy (non-idle) time went, by function and by area
// (a file of the gateway, an npm package, a Node core module, GC).

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  share: number;
}

export interface ProfileSummary {
  busyMs: number;
  functions: ProfileEntry[];
  areas: ProfileEntry[];
}

function shortUrl(url: string, root: string): string {
  let u = url.startsWith('file://') ? decodeURIComponent(url.slice(7)) : url;
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) return u.slice(nm + 14);
  if (u.startsWith(root)) u = u.slice(root.length);
  return u;
}

function areaOf(frame: CallFrame, url: string): string {
  if (!frame.url)
    return frame.functionName.startsWith('(') ? frame.functionName : `native ${frame.functionName || '(unnamed)'}`;
  if (url.startsWith('node:')) return url;
  if (frame.url.includes('/node_modules/')) {
    const parts = url.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return url;
}

/** `root` is stripped from file paths (the project directory, with a trailing slash). */
export function summariseProfile(profile: CpuProfile, root: string, top = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time since the previous sample: sample i-1 ran for timeDeltas[i].
  for (let i = 0; i < profile.samples.length - 1; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  let busy = 0;
  const fns = new Map<string, number>();
  const areas = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') continue;
    busy += us;
    const url = shortUrl(frame.url, root);
    const fn = frame.url
      ? `${frame.functionName || '(anonymous)'} ${url}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`
      : frame.functionName || '(native, unnamed)';
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    const area = areaOf(frame, url);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const rank = (m: Map<string, number>): ProfileEntry[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, share: busy > 0 ? us / busy : 0 }));
  return { busyMs: busy / 1000, functions: rank(fns), areas: rank(areas) };
}
