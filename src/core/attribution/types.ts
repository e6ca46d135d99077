/**
 * Attribution: which line (and which function) each second of the profile belongs to, beyond what V8's
 * CPU profile says directly. V8 records self time per line only for the top frame, charges inlined
 * callees' lines to their caller's frame, and records no call-site lines at all; attribution adds
 * inclusive time per call-site line, places inlined code in its own file, and sums the time a user
 * function can act on (its own cost). Times are µs inside, like the profile model.
 */
import type { Category } from '../profile/types';

/** How a line's self time was placed: it is the frame's own line, or an inlined callee's (V8 said so, or inferred from the source). */
export type Placement = 'own' | 'inlined' | 'inferred';

export interface CallSiteLine {
  file: string;
  line: number;
  column: number | null;
}

/** Where a caller makes a call: one line, several candidate lines (the profile cannot tell which), or not found. */
export type CallSiteResult =
  | { status: 'placed'; site: CallSiteLine; via?: CallSiteLine }
  | { status: 'ambiguous'; lines: CallSiteLine[] }
  | { status: 'not-found' };

/** A function that ran, identified beyond the profile's frames (a callee that ran only inlined has no frame). */
export interface AttributedFunctionInfo {
  /** Index in model.functions; -1 when the function ran only inlined into other functions' frames. */
  model: number;
  name: string;
  /** Display position: the original source when mapped and on disk, else the script. '' for natives. */
  file: string;
  line: number | null;
  column: number | null;
  url: string;
  category: Category;
  package: string | null;
  /** Where a source map put the function when that file is not installed (shown as secondary). */
  sourceNotInstalled?: { file: string; line: number; column: number };
  /**
   * A function known only as inlined code: its position in the script V8 ran (file path, 1-based line
   * and column of its `(`), the key of V8's own facts about it; absent when only its source is known.
   */
  generated?: { file: string; line: number; column: number };
}

/** A direct callee's share of a user function's own cost (non-user code it called), or inlined non-user code. */
export interface OwnPart {
  /** Attribution function id of the callee the user function called (the entry into non-user code). */
  callee: number;
  us: number;
  /** Where most of that time ran: 'native' when V8 builtins or C++ dominated, else the callee's category. */
  ranIn: Category;
}

export interface AttributedLine {
  /** Display file and 1-based line. */
  file: string;
  line: number;
  /** Time with this line on top of the stack (its own code, or an inlined callee's code placed here). */
  selfUs: number;
  /** Time with this line anywhere on the stack: self plus everything called from it. */
  totalUs: number;
  /** Self plus non-user code called from this line: the part a change to this line can remove. */
  ownUs: number;
  /** The function with the most self time on this line (attribution id); -1 for a call-only line's caller unknown. */
  fn: number;
  /** When the code here ran inlined into another function's frame: that frame's function (attribution id). */
  inlinedInto?: number;
  placement: Placement;
  /** Callees called from this line, with their total under this line. */
  calls: { callee: number; us: number }[];
}

export interface NotPlaced {
  /** Time V8 charged to this frame on lines we could not place (µs). */
  us: number;
  /** Why, in a phrase, with the candidates when there were several. */
  reasons: string[];
}

export interface PackageTotal {
  package: string;
  selfUs: number;
  /** Time with any frame of the package on the stack. */
  totalUs: number;
}

export interface Attribution {
  /** model.functions.length ≤ id < functions.length are functions known only as inlined code. */
  functions: AttributedFunctionInfo[];
  /** Per function id: self time where its code ran (inlined placements moved to the inlinee). */
  selfUs: Float64Array;
  /** Per function id: total (inclusive) time; for inline-only functions, their placed ticks. */
  totalUs: Float64Array;
  /** Per function id: own cost for user functions (self + non-user callees), self for others. */
  ownUs: Float64Array;
  /** Per function id: the part of selfUs that ran inlined into other functions' frames. */
  inlinedUs: Float64Array;
  /** Per user function id: the biggest non-user parts of its own cost. */
  ownParts: Map<number, OwnPart[]>;
  /** Per frame function id: time on lines that could not be placed. */
  notPlaced: Map<number, NotPlaced>;
  /** Per function id: the frames it ran inlined in (attribution ids), with its time there, heaviest first. */
  inlinedInto: Map<number, { frame: number; us: number }[]>;
  /** Placed lines, heaviest total first. */
  lines: AttributedLine[];
  /** Call sites of (caller id, callee id) pairs that were looked up: key `${caller}:${callee}`. */
  callSites: Map<string, CallSiteResult>;
  /** Per user function id: callees whose call could not be placed on one line, with their time. */
  unplacedCalls: Map<number, { callee: number; us: number; site: CallSiteResult }[]>;
  /** For non-user functions: the user function most of their self time runs under, with the call site. */
  userCallers: Map<number, { caller: number; site: CallSiteResult; us: number }>;
  /** For non-user functions with no synchronous user caller: what started them ("a socket callback of `pg`"). */
  asyncContexts: Map<number, string>;
  packages: PackageTotal[];
  /** Source files that could not be read for attribution, and why (reported once as a warning). */
  skippedSources: Map<string, string>;
  /** Whether V8's inlining facts were available (placements are then 'inlined', else 'inferred'). */
  usedV8: boolean;
  /**
   * Per model line entry (model.lines): the function whose code its ticks ran when placement moved them
   * out of the frame's own function (an inlined callee, attribution id), else -1. The flamegraph draws
   * those ticks as inlined frames from this, so it shows the same placement as the editor.
   */
  entryInlinee: Int32Array;
  /** Per model line entry with an inlinee: 1 when V8 reported the inlining, 2 when it was inferred from the source. */
  entryPlacement: Uint8Array;
  /**
   * Allocation profiles (AttributeOptions.allocations): per model function, the inlined callee all of its
   * frames' bytes were placed on (attribution id), else -1. Empty otherwise.
   */
  frameInlinee: Int32Array;
  /** Allocation profiles: per frame function with something inlined in it, what ran there and whose the bytes are. */
  framePlacements: Map<number, FramePlacement>;
}

/** Whether a function's own code can allocate, by its source (allocatingCode.ts). */
export interface AllocationEvidenceInfo {
  verdict: 'yes' | 'maybe' | 'no';
  what?: string;
  line?: number;
}

/** The functions that ran inlined in a frame of an allocation profile, and whose its bytes are (allocationPlacement.ts). */
export interface FramePlacement {
  /** The frame's function (attribution id). */
  frame: number;
  own: AllocationEvidenceInfo;
  /** Functions whose code may have run inlined in the frame: V8 reported them (confirmed) or the source calls them. */
  inlined: { fn: number; confirmed: boolean; evidence: AllocationEvidenceInfo }[];
  /** The one function whose code can have allocated, when it is an inlined callee: the bytes are its. */
  placedOn: number | null;
  placement?: 'inlined' | 'inferred';
  /** Why the bytes stay on the frame although something inlined in it can allocate. */
  reason?: string;
}
