import { Text } from '@instructure/ui';
import type { ReactNode } from 'react';

export type DefinitionItem = {
  term: ReactNode;
  description: ReactNode;
  /** Stable key; defaults to the term when that is a string. */
  key?: string;
};

/**
 * A semantic <dl>: InstUI has no definition list, and key/value facts read better to screen
 * readers as term/description pairs than as a table.
 */
export function DefinitionList({ items, label }: { items: readonly DefinitionItem[]; label?: string }) {
  return (
    <dl className="exb-dl" aria-label={label}>
      {items.map((item, index) => (
        <DefinitionRow key={item.key ?? (typeof item.term === 'string' ? item.term : index)} item={item} />
      ))}
    </dl>
  );
}

function DefinitionRow({ item }: { item: DefinitionItem }) {
  return (
    <>
      <dt>
        <Text weight="bold">{item.term}</Text>
      </dt>
      <dd>
        <Text>{item.description}</Text>
      </dd>
    </>
  );
}
