import { Component, type ComponentType, type ErrorInfo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../api/client';
import { reportError } from '../app/error-reporting';

export type FallbackProps = {
  /** what to tell the person to quote: the request id of a failed call, else the monitor's event id */
  reference: { kind: 'requestId' | 'eventId'; id: string } | null;
  retry: () => void;
};

type Props = {
  children: ReactNode;
  fallback: ComponentType<FallbackProps>;
  /** a change of it (the page's path) clears a failure: moving elsewhere starts afresh, without remounting */
  resetKey?: unknown;
};
type State = { error: unknown; failed: boolean; eventId: number | undefined };

/** A page's chunk that no longer exists (the console was updated under an open tab): only a reload helps. */
const isChunkLoadError = (error: unknown) =>
  error instanceof Error && /dynamically imported module|Importing a module script failed/i.test(error.message);

/**
 * Catches what a page throws while rendering, reports it (with the component stack) and shows
 * `fallback` instead of a blank screen: a translated message, a retry, and the id to quote.
 */
export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null, failed: false, eventId: undefined };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error, failed: true, eventId: undefined };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    void reportError(error, { componentStack: info.componentStack?.slice(0, 4000) }).then((eventId) => {
      if (eventId !== undefined && this.state.error === error) this.setState({ eventId });
    });
  }

  componentDidUpdate(previous: Props) {
    if (this.state.failed && previous.resetKey !== this.props.resetKey)
      this.setState({ error: null, failed: false, eventId: undefined });
  }

  retry = () => {
    if (isChunkLoadError(this.state.error)) location.reload();
    else this.setState({ error: null, failed: false, eventId: undefined });
  };

  render() {
    if (!this.state.failed) return this.props.children;
    const { error, eventId } = this.state;
    const requestId = error instanceof ApiCallError ? error.body.requestId : undefined;
    const reference: FallbackProps['reference'] = requestId
      ? { kind: 'requestId', id: requestId }
      : eventId !== undefined
        ? { kind: 'eventId', id: String(eventId) }
        : null;
    const Fallback = this.props.fallback;
    return <Fallback reference={reference} retry={this.retry} />;
  }
}

/**
 * The fallback without antd, for the whole app (the sign-in page has no antd). Native elements
 * follow the theme's color-scheme (theme-boot.js); `role="alert"` so a screen reader says it.
 */
export function PlainErrorFallback({ reference, retry }: FallbackProps) {
  const { t } = useTranslation();
  return (
    <main style={{ maxWidth: 520, margin: '15vh auto', padding: '0 24px', font: '16px/1.6 system-ui, sans-serif' }}>
      <div role="alert">
        <h1 style={{ fontSize: 24, margin: '0 0 8px' }}>{t('pageError.title')}</h1>
        <p style={{ margin: '0 0 8px' }}>{t('pageError.body')}</p>
        {reference ? (
          <p style={{ margin: '0 0 16px' }}>{t(`pageError.${reference.kind}`, { id: reference.id })}</p>
        ) : null}
      </div>
      <button type="button" onClick={retry} style={{ font: 'inherit', padding: '4px 16px', cursor: 'pointer' }}>
        {t('retry')}
      </button>
    </main>
  );
}
