export * from './baselineStore';
export * from './compare';
export * from './environment';
export * from './logRatio';
export * from './metrics';
export * from './runSummary';
