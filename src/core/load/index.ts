export * from './options';
export * from './result';
export * from './runner';
export * from './routes';
