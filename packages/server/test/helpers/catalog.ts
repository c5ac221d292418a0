import { moduleEvents } from '../../src/app.ts';
import { createCatalog } from '../../src/modules/messaging/catalog/catalog.ts';

/** The app's notification catalog, for tests that need an event's declaration without an app. */
export const catalog = createCatalog(moduleEvents);
