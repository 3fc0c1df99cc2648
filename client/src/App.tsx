import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import type { Bootstrap } from './bootstrap';
import { Loading } from './components/Loading';
import { PageMessage } from './components/PageMessage';
import { ViewErrorBoundary } from './components/ViewErrorBoundary';
import { resolveView } from './views';

export function App({ bootstrap }: { bootstrap: Bootstrap }) {
  const { t } = useTranslation();
  const View = resolveView(bootstrap.view);
  if (!View) {
    return (
      <PageMessage
        title={t('unknownView.title')}
        message={t('unknownView.message')}
        details={[{ label: t('unknownView.requestedView'), value: bootstrap.view }]}
      />
    );
  }
  return (
    <ViewErrorBoundary>
      <Suspense fallback={<Loading />}>
        <View bootstrap={bootstrap} />
      </Suspense>
    </ViewErrorBoundary>
  );
}
