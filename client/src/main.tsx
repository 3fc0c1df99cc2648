import './styles.css';
import { canvas, InstUISettingsProvider } from '@instructure/ui';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { readBootstrap } from './bootstrap';
import { PageMessage } from './components/PageMessage';
import { i18next, startI18n } from './i18n/i18n';
import { pageLocale } from './i18n/page-locale';
import { getLiveRegion } from './lib/live-region';
import { holdSessionToken } from './lib/session-token';

async function mount(): Promise<void> {
  const container = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));
  // Announcements are only read for a live region that existed before the content changed.
  getLiveRegion();

  const result = readBootstrap();
  if (result.ok) holdSessionToken(result.bootstrap.sessionToken);
  await startI18n(pageLocale(result.ok ? result.bootstrap : undefined));
  createRoot(container).render(
    <StrictMode>
      <InstUISettingsProvider theme={canvas}>
        {result.ok ? (
          <App bootstrap={result.bootstrap} />
        ) : (
          <PageMessage
            title={i18next.t('pageUnavailable.title')}
            message={i18next.t('pageUnavailable.reload', { reason: i18next.t(`pageUnavailable.${result.reason}`) })}
            details={result.details}
          />
        )}
      </InstUISettingsProvider>
    </StrictMode>,
  );
}

void mount();
