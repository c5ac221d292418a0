export declare function buildReporter(options?: { quiet?: boolean }): Promise<{ minified: number; gzipped: number }>;
