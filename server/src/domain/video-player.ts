import { isVideoId } from '@exb/shared/exb-policy.js';

/**
 * The approved-tool video player: a page on this service that frames one video from the embedding host. Tools link to
 * it by the canonical 11-character id only, so no caller-chosen URL ever reaches the frame. The id rule is the policy's
 * (`@exb/shared/exb-policy.js`), the same one that turns a video link into the player route.
 */
export { isVideoId };

/** `{host}/embed/<id>?rel=0&origin=<service origin>`; the host needs the embedding origin for its player API. */
export function videoEmbedUrl(embedHost: string, videoId: string, serviceOrigin: string): string {
  if (!isVideoId(videoId)) throw new Error('not a video id');
  const url = new URL(`/embed/${videoId}`, embedHost);
  url.searchParams.set('rel', '0');
  url.searchParams.set('origin', serviceOrigin);
  return url.href;
}
