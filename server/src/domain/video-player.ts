/**
 * The approved-tool video player: a page on this service that frames one video from the embedding host. Tools link to
 * it by the canonical 11-character id only, so no caller-chosen URL ever reaches the frame.
 */

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;

export function isVideoId(value: string): boolean {
  return VIDEO_ID.test(value);
}

export function videoPlayerPath(videoId: string): string {
  if (!isVideoId(videoId)) throw new Error('not a video id');
  return `/exb/tool/video/${videoId}`;
}

/** `{host}/embed/<id>?rel=0&origin=<service origin>`; the host needs the embedding origin for its player API. */
export function videoEmbedUrl(embedHost: string, videoId: string, serviceOrigin: string): string {
  if (!isVideoId(videoId)) throw new Error('not a video id');
  const url = new URL(`/embed/${videoId}`, embedHost);
  url.searchParams.set('rel', '0');
  url.searchParams.set('origin', serviceOrigin);
  return url.href;
}
