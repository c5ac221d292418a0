import { Suspense } from 'react';
import { BrowserRouter } from 'react-router';
import '../i18n';
import { AppRoutes } from './routes';

/** The console: its routes, each page a lazy chunk (routes.tsx). */
export function App() {
  return (
    <BrowserRouter>
      <Suspense>
        <AppRoutes />
      </Suspense>
    </BrowserRouter>
  );
}
