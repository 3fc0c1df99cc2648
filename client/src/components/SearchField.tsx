import { IconSearchLine, TextInput } from '@instructure/ui';
import { useEffect, useState } from 'react';

const SEARCH_DELAY_MS = 300;

const trimmed = (text: string) => text.trim();

/**
 * A search box's text and the search it stands for: the text normalized, once typing paused. `onSearchChange` runs
 * when the search changes (a paged list goes back to its first page); it must keep its identity between renders.
 */
export function useDebouncedSearch(normalize: (text: string) => string = trimmed, onSearchChange?: () => void) {
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  useEffect(() => {
    const timer = window.setTimeout(() => {
      const next = normalize(text);
      if (next !== search) {
        setSearch(next);
        onSearchChange?.();
      }
    }, SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [text, search, normalize, onSearchChange]);
  return { text, setText, search };
}

export type DebouncedSearch = ReturnType<typeof useDebouncedSearch>;

export interface SearchFieldProps {
  search: DebouncedSearch;
  /** Label, placeholder and hint, already in the page's language. */
  label: string;
  placeholder?: string;
  hint?: string;
  disabled?: boolean;
}

/** The search box of a list, with its magnifier. */
export function SearchField({ search, label, placeholder, hint, disabled = false }: SearchFieldProps) {
  return (
    <TextInput
      renderLabel={label}
      placeholder={placeholder}
      type="search"
      value={search.text}
      onChange={(_event, value) => search.setText(value)}
      renderBeforeInput={<IconSearchLine inline={false} />}
      interaction={disabled ? 'disabled' : 'enabled'}
      messages={hint !== undefined ? [{ type: 'hint', text: hint }] : undefined}
    />
  );
}
