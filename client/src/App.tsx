import { Suspense } from 'react';
import type { Bootstrap } from './bootstrap';
import { Loading } from './components/Loading';
import { PageMessage } from './components/PageMessage';
import { ViewErrorBoundary } from './components/ViewErrorBoundary';
import { resolveView } from './views';

export function App({ bootstrap }: { bootstrap: Bootstrap }) {
  const View = resolveView(bootstrap.view);
  if (!View) {
    return (
      <PageMessage
        title="This page is not available"
        message="This version of the tool does not know how to show this page. Reload the page; if the problem persists, open the tool again from the LMS or contact your LMS administrator."
        details={[{ label: 'Requested view', value: bootstrap.view }]}
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
