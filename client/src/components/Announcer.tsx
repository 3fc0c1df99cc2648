import { Alert } from '@instructure/ui';
import { useCallback, useState, type ReactElement } from 'react';
import { getLiveRegion } from '../lib/live-region';

type Announcement = { id: number; text: string; politeness: 'polite' | 'assertive' };

let announcementId = 0;

/**
 * Screen-reader announcements for outcomes that are visible elsewhere on the page (a switch that settled, values that
 * were hidden again). Returns the element to render and the function that announces; each announcement is a fresh
 * element, so repeating the same text is read again.
 */
export function useAnnouncer(): [ReactElement | null, (text: string, politeness?: Announcement['politeness']) => void] {
  const [current, setCurrent] = useState<Announcement | null>(null);
  const announce = useCallback((text: string, politeness: Announcement['politeness'] = 'polite') => {
    announcementId += 1;
    setCurrent({ id: announcementId, text, politeness });
  }, []);
  const element =
    current === null ? null : (
      <Alert key={current.id} screenReaderOnly liveRegion={getLiveRegion} liveRegionPoliteness={current.politeness}>
        {current.text}
      </Alert>
    );
  return [element, announce];
}
