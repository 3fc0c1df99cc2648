import { Component, type ErrorInfo, type ReactNode } from 'react';
import { i18next } from '../i18n/i18n';
import { PageMessage } from './PageMessage';

type State = { error: Error | null };

/**
 * Catches a view that throws while rendering, and a lazy view chunk that fails to load (for
 * example after a deploy replaced the hashed file names), so the frame never goes blank.
 */
export class ViewErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('View failed to render', error, info.componentStack);
  }

  override render() {
    if (this.state.error) {
      return (
        <PageMessage
          title={i18next.t('pageUnavailable.title')}
          message={i18next.t('pageUnavailable.renderFailed')}
          details={[this.state.error.message]}
        />
      );
    }
    return this.props.children;
  }
}
