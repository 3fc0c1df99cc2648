import { Alert, Flex, SimpleSelect, Spinner } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useAnnouncer } from '../../components/Announcer';
import { readServerError, useTRPC } from '../../lib/trpc';
import { termLabel } from './model';

/**
 * The operational term: the term the school works in now. Courses that ended before it began count as past. The list
 * is the LMS's live term list; choosing saves it for the whole account.
 */
export function TermSelector() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const terms = useQuery(trpc.admin.terms.list.queryOptions());
  const [error, setError] = useState<string | null>(null);
  const [announcement, announce] = useAnnouncer();
  const choose = useMutation(
    trpc.admin.terms.setOperational.mutationOptions({
      onMutate: () => setError(null),
      onSuccess: (result) => {
        announce(`Operational term set to ${result.operationalTerm.name}.`);
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
      onError: (failure) => setError(`${readServerError(failure).message} Choose the term again.`),
    }),
  );

  if (terms.isPending) return <Spinner renderTitle="Loading the terms from the LMS" size="x-small" />;
  if (terms.isError) {
    return (
      <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
        The terms could not be read from the LMS: {readServerError(terms.error).message} Reload the page to try again.
      </Alert>
    );
  }
  const selected = choose.isPending && choose.variables ? choose.variables.termId : (terms.data.operationalTerm?.id ?? '');
  const current = terms.data.terms.find((term) => term.id === selected);
  return (
    <Flex gap="x-small" alignItems="end">
      {announcement}
      <Flex.Item shouldShrink>
        <SimpleSelect
          renderLabel="Operational term"
          value={selected}
          onChange={(_event, { value }) => {
            if (typeof value === 'string' && value !== selected && !choose.isPending) choose.mutate({ termId: value });
          }}
          messages={
            error !== null
              ? [{ type: 'newError', text: error }]
              : [{ type: 'hint', text: `${current ? `${termLabel(current)}. ` : ''}Courses that ended before it began count as past.` }]
          }
        >
          {terms.data.terms.map((term) => (
            <SimpleSelect.Option id={`term-${term.id}`} key={term.id} value={term.id}>
              {term.name}
            </SimpleSelect.Option>
          ))}
        </SimpleSelect>
      </Flex.Item>
      {choose.isPending && <Spinner renderTitle="Saving the operational term" size="x-small" margin="0 0 small" />}
    </Flex>
  );
}
