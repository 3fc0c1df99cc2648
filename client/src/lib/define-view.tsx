import { useMemo, type ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { describeIssues, type Bootstrap } from '../bootstrap';
import { PageMessage } from '../components/PageMessage';
import type { z } from './zod';

/** What the registry hands every view: the whole, already shape-checked bootstrap. */
export type ViewProps = { bootstrap: Bootstrap };

export type ViewComponent = ComponentType<ViewProps>;

/**
 * Wraps a view so that it only ever renders data that passed its own schema. A shell with
 * malformed data is a server bug; showing which fields are wrong beats a blank iframe.
 */
export function defineView<S extends z.ZodType>(
  schema: S,
  Component: ComponentType<{ data: z.output<S>; view: string }>,
): ViewComponent {
  function ValidatedView({ bootstrap }: ViewProps) {
    const { t } = useTranslation();
    const parsed = useMemo(() => schema.safeParse(bootstrap), [bootstrap]);
    if (!parsed.success) {
      return (
        <PageMessage
          title={t('pageUnavailable.title')}
          message={t('pageUnavailable.viewData', { view: bootstrap.view })}
          details={describeIssues(parsed.error)}
        />
      );
    }
    return <Component data={parsed.data} view={bootstrap.view} />;
  }
  ValidatedView.displayName = `View(${Component.displayName || Component.name || 'anonymous'})`;
  return ValidatedView;
}
