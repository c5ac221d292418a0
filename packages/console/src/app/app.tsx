import { Suspense } from 'react';
import { BrowserRouter } from 'react-router';
import '../i18n';
import { ErrorBoundary, PlainErrorFallback } from '../components/error-boundary';
import { AppRoutes } from './routes';

/**
 * The console: its routes, each page a lazy chunk (routes.tsx). The outermost error boundary
 * catches what the pages' own (antd-layout.tsx, shell/layout.tsx) do not: the sign-in page's.
 */
export function App() {
  return (
    <BrowserRouter>
      <ErrorBoundary fallback={PlainErrorFallback}>
        <Suspense>
          <AppRoutes />
        </Suspense>
      </ErrorBoundary>
    </BrowserRouter>
  );
}
