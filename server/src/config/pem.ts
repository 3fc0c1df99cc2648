/** Splits a text holding one or more PEM blocks of the given label (e.g. "PRIVATE KEY") into single PEM strings. */
export function parsePemBlocks(text: string, label: string): string[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----[\\s\\S]+?-----END ${label}-----`, 'g');
  return (text.match(pattern) ?? []).map((block) => `${block.trim()}\n`);
}
