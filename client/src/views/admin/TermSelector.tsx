import { Flex, SimpleSelect, Spinner } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { QueryState } from '../../components/QueryState';
import { readServerError, useTRPC } from '../../lib/trpc';
import { termLabel } from './model';

/**
 * The operational term: the term the school works in now. Courses that ended before it began count as past. The list
 * is the LMS's live term list; choosing saves it for the whole account.
 */
export function TermSelector() {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const terms = useQuery(trpc.admin.terms.list.queryOptions());
  const [error, setError] = useState<string | null>(null);
  const [announcement, announce] = useAnnouncer();
  const choose = useMutation(
    trpc.admin.terms.setOperational.mutationOptions({
      onMutate: () => setError(null),
      onSuccess: (result) => {
        announce(t('terms.saved', { term: result.operationalTerm.name }));
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
      onError: (failure) => setError(t('terms.saveFailed', { reason: readServerError(failure).message })),
    }),
  );

  return (
    <QueryState query={terms} size="small" loading={t('terms.loading')} failed={(reason) => t('terms.loadFailed', { reason })}>
      {(data) => {
        const selected = choose.isPending && choose.variables ? choose.variables.termId : (data.operationalTerm?.id ?? '');
        const current = data.terms.find((term) => term.id === selected);
        const hint = current ? t('terms.hintWithTerm', { term: termLabel(current) }) : t('terms.hint');
        return (
          <Flex gap="x-small" alignItems="end">
            {announcement}
            <Flex.Item shouldShrink>
              <SimpleSelect
                renderLabel={t('terms.label')}
                value={selected}
                onChange={(_event, { value }) => {
                  if (typeof value === 'string' && value !== selected && !choose.isPending) choose.mutate({ termId: value });
                }}
                messages={error !== null ? [{ type: 'newError', text: error }] : [{ type: 'hint', text: hint }]}
              >
                {data.terms.map((term) => (
                  <SimpleSelect.Option id={`term-${term.id}`} key={term.id} value={term.id}>
                    {term.name}
                  </SimpleSelect.Option>
                ))}
              </SimpleSelect>
            </Flex.Item>
            {choose.isPending && <Spinner renderTitle={t('terms.saving')} size="x-small" margin="0 0 small" />}
          </Flex>
        );
      }}
    </QueryState>
  );
}
