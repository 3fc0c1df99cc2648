import './styles.css';
import { canvas, InstUISettingsProvider } from '@instructure/ui';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { readBootstrap } from './bootstrap';
import { PageMessage } from './components/PageMessage';
import { getLiveRegion } from './lib/live-region';

function mount(): void {
  const container = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));
  // Announcements are only read for a live region that existed before the content changed.
  getLiveRegion();

  const result = readBootstrap();
  createRoot(container).render(
    <StrictMode>
      <InstUISettingsProvider theme={canvas}>
        {result.ok ? (
          <App bootstrap={result.bootstrap} />
        ) : (
          <PageMessage
            title="This page could not be displayed"
            message={`${result.reason} Reload the page; if the problem persists, open the tool again from the LMS.`}
            details={result.details}
          />
        )}
      </InstUISettingsProvider>
    </StrictMode>,
  );
}

mount();
