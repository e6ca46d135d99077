/**
 * Attribution answers "which line can I change?": inclusive time on call-site lines, inlined code
 * placed in its own file, own cost per user function, per-package totals, async origins.
 */
export { attributeProfile, type AttributeOptions } from './attribute';
export { plainAttribution } from './plain';
export { attributedLines, packageRows, rankAttributedHotspots, functionLabel, whereLabel, nodeModuleLabel, partWhere, ownMatters, ownDetail, type AttributedHotLine, type AttributedHotspot, type CallRow, type CallerSite, type OwnPartRow, type PackageRow } from './rank';
export { diskSources, readBoundedText, type SourceProvider } from './sources';
export type * from './types';
