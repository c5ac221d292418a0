import { defineConfig } from 'drizzle-kit';

// Tables live beside their module (`tables.ts`); migrations are committed SQL.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/**/tables.ts',
  out: './src/migrations',
});
