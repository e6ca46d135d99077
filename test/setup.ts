// Loaded by mocha before every test file (.mocharc.json). Tests see sources as they are now: the parse
// cache in the user's cache directory is off unless a test turns it on for itself.
process.env.HOTPATH_SOURCE_CACHE ??= 'off';
