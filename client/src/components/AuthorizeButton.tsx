import { Alert, Button, View } from '@instructure/ui';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { getLiveRegion } from '../lib/live-region';
import { openAuthorizationPopup, reloadAfterAuthorization } from '../lib/oauth-popup';

export type AuthorizeButtonProps = {
  /** The authorization start, a path on this service such as `/api/admin/oauth2authorize`. */
  startUrl: string;
  children: ReactNode;
  /** What follows the popup's completion signal; by default the tool page reloads. */
  onCompleted?: () => void;
};

/**
 * Starts an LMS authorization in a popup that reports back to this page. A button, not a link: the start only works
 * with the session handed over by {@link openAuthorizationPopup}, which a link opened in a new tab would not have.
 */
export function AuthorizeButton({ startUrl, children, onCompleted = reloadAfterAuthorization }: AuthorizeButtonProps) {
  const { t } = useTranslation();
  const [error, setError] = useState<string | null>(null);
  const start = () => {
    setError(null);
    if (!openAuthorizationPopup(startUrl, onCompleted, { onFailed: setError })) setError(t('authorize.notOpened'));
  };
  return (
    <View as="div">
      <Button color="primary" onClick={start}>
        {children}
      </Button>
      {error !== null && (
        <Alert
          variant="error"
          variantScreenReaderLabel={t('variant.error')}
          hasShadow={false}
          margin="small 0 0"
          liveRegion={getLiveRegion}
          liveRegionPoliteness="assertive"
        >
          {error}
        </Alert>
      )}
    </View>
  );
}
