/**
 * How the import CLIs report a record they refuse: where it is in the file, and each problem at
 * its path inside the record, on one stderr line.
 */
export interface ImportProblem {
  /** Where in the record, like `hourly[2].hour`; empty for the record as a whole. */
  path: string;
  message: string;
}

export interface ImportRejection {
  /** Where in the file: `line 7` (ndjson), `line 3, fxRates[1]`, `ads[4]`, `fxRates[0]` (json). */
  location: string;
  problems: ImportProblem[];
}

const MAX_PROBLEMS_SHOWN = 10;

/** `["hourly", "2", "hour"]` reads as `hourly[2].hour`. */
export function formatPath(path: readonly string[]): string {
  return path.reduce((text, segment) => (/^\d+$/.test(segment) ? `${text}[${segment}]` : text ? `${text}.${segment}` : segment), '');
}

export function formatRejection(rejection: ImportRejection): string {
  const shown = rejection.problems.slice(0, MAX_PROBLEMS_SHOWN).map((problem) => (problem.path ? `${problem.path}: ${problem.message}` : problem.message));
  const hidden = rejection.problems.length - shown.length;
  return `Rejected ${rejection.location}: ${shown.join('; ')}${hidden > 0 ? `; and ${hidden} more problem${hidden > 1 ? 's' : ''}` : ''}`;
}
