import { Button, Checkbox, Flex, Heading, ScreenReaderContent, Text, View } from '@instructure/ui';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { normalizeAdminSearch } from '@exb/shared/admin-courses.js';
import { ADMIN_TOOL_PRESET_LIMITS } from '@exb/shared/admin-tool-presets.js';
import { DataTable, type TableColumn } from '../../../components/DataTable';
import { QueryState } from '../../../components/QueryState';
import { SearchField, useDebouncedSearch } from '../../../components/SearchField';
import { StatusAlert } from '../../../components/StatusAlert';
import { readServerError, useTRPC } from '../../../lib/trpc';
import type { CourseRow } from '../model';
import type { Preset } from './model';
import { RolloutProgress, type RolloutRun } from './RolloutProgress';

const PICKER_PAGE_SIZE = 50;

/**
 * Chooses the connected courses a preset goes to (or leaves): search, select what is listed, or all connected courses
 * at once. The rollout then runs with visible progress.
 */
export function AssignmentPicker({ preset }: { preset: Preset }) {
  const { t, i18n } = useTranslation('admin');
  const trpc = useTRPC();
  const search = useDebouncedSearch(normalizeAdminSearch);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [everyCourse, setEveryCourse] = useState(false);
  const [run, setRun] = useState<RolloutRun | null>(null);
  // A run shows only while it is about the preset's current definition: after an edit the courses wait for the change,
  // and the panel offers to roll it out instead of a finished bar beside the new pending count.
  const current = run !== null && run.revision === preset.updatedAt ? run : null;

  const courses = useQuery({
    ...trpc.admin.courses.list.queryOptions({ search: search.search, includePast: true, limit: PICKER_PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const assign = useMutation(
    trpc.admin.toolPresets.assign.mutationOptions({
      onSuccess: (answer) => {
        setRun({ presetId: preset.id, total: answer.queuedCount, rollout: answer.rollout, retryFailed: false, revision: preset.updatedAt });
        setSelected(new Set());
        setEveryCourse(false);
      },
    }),
  );
  const count = everyCourse ? null : selected.size;
  const select = (ids: readonly string[], on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      for (const id of ids) if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const submit = (on: boolean) =>
    assign.mutate({ presetId: preset.id, assigned: on, all: everyCourse, ...(everyCourse ? {} : { courseIds: [...selected] }) });
  const interaction = count === 0 || assign.isPending ? 'disabled' : 'enabled';

  return (
    <View as="section" display="block" aria-labelledby={`assign-${preset.id}`}>
      <Heading level="h4" id={`assign-${preset.id}`} margin="0 0 x-small">
        {t('presets.assign.heading', { name: preset.name })}
      </Heading>
      <Text as="p" size="small">
        {t('presets.assign.intro', { count: preset.assignedCourseCount })}
      </Text>
      {current === null && preset.pendingAssignmentCount > 0 && (
        <StatusAlert variant="info" margin="small 0">
          <Flex gap="small" alignItems="center" wrap="wrap">
            <Flex.Item shouldGrow shouldShrink>
              {t('presets.assign.waiting', { count: preset.pendingAssignmentCount })}
            </Flex.Item>
            <Button
              size="small"
              onClick={() => {
                const pending = preset.pendingAssignmentCount;
                setRun({ presetId: preset.id, total: pending, rollout: { processed: 0, applied: 0, failed: 0, pending }, retryFailed: false, revision: preset.updatedAt });
              }}
            >
              {t('presets.assign.updateNow')}
            </Button>
          </Flex>
        </StatusAlert>
      )}
      {current !== null && (
        <RolloutProgress
          run={current}
          onRetry={(failedCount) =>
            setRun({
              presetId: preset.id,
              total: Math.max(failedCount, preset.failedAssignmentCount),
              rollout: { processed: 0, applied: 0, failed: 0, pending: failedCount },
              retryFailed: true,
              revision: preset.updatedAt,
            })
          }
        />
      )}
      <Flex gap="small" wrap="wrap" alignItems="end" margin="small 0">
        <Flex.Item shouldGrow shouldShrink size="14rem">
          <SearchField search={search} label={t('courses.search')} placeholder={t('courses.searchPlaceholder')} disabled={everyCourse} />
        </Flex.Item>
        <Flex.Item>
          <Checkbox
            label={t('presets.assign.everyCourse', { limit: ADMIN_TOOL_PRESET_LIMITS.rolloutCourses.toLocaleString(i18n.language) })}
            checked={everyCourse}
            onChange={(event) => setEveryCourse(event.target.checked)}
          />
        </Flex.Item>
      </Flex>
      {!everyCourse && (
        <View as="div" position="relative">
          <QueryState query={courses} size="small" loading={t('courses.loading')} failed={(reason) => t('presets.assign.loadFailed', { reason })}>
            {(data) =>
              data.courses.length === 0 ? (
                <Text as="p">{search.search !== '' ? t('courses.noMatch', { search: search.search }) : t('courses.none')}</Text>
              ) : (
                <PickerTable preset={preset} courses={data.courses} selected={selected} onSelect={select} />
              )
            }
          </QueryState>
          {courses.data !== undefined && courses.data.nextCursor !== null && (
            <Text as="p" size="small" color="secondary">
              {t('presets.assign.firstOnly', { count: PICKER_PAGE_SIZE })}
            </Text>
          )}
        </View>
      )}
      {assign.isError && <StatusAlert margin="small 0 0">{readServerError(assign.error).message}</StatusAlert>}
      <Flex gap="small" margin="small 0 0" wrap="wrap">
        <Button color="primary" interaction={interaction} onClick={() => submit(true)}>
          {count === null ? t('presets.assign.assignAll') : t('presets.assign.assignSelected', { count })}
        </Button>
        <Button interaction={interaction} onClick={() => submit(false)}>
          {count === null ? t('presets.assign.removeAll') : t('presets.assign.removeSelected', { count })}
        </Button>
      </Flex>
    </View>
  );
}

interface PickerTableProps {
  preset: Preset;
  courses: readonly CourseRow[];
  selected: ReadonlySet<string>;
  onSelect: (ids: readonly string[], on: boolean) => void;
}

/** The listed courses, each with its box, and a box for all of them. */
function PickerTable({ preset, courses, selected, onSelect }: PickerTableProps) {
  const { t } = useTranslation('admin');
  const assigned = useMemo(() => new Set(preset.assignedCourseIds), [preset.assignedCourseIds]);
  const columns: TableColumn<CourseRow>[] = [
    {
      id: 'pick',
      header: t('catalog.column.select'),
      headerHidden: true,
      width: '3rem',
      render: (course) => (
        <Checkbox
          label={<ScreenReaderContent>{t('select', { name: course.name })}</ScreenReaderContent>}
          checked={selected.has(course.id)}
          onChange={(event) => onSelect([course.id], event.target.checked)}
        />
      ),
    },
    { id: 'pick-course', header: t('courses.column.course'), rowHeader: true, render: (course) => course.name },
    { id: 'pick-code', header: t('courses.column.code'), render: (course) => course.courseCode || '—' },
    {
      id: 'pick-state',
      header: t('presets.assign.column.preset'),
      render: (course) => (assigned.has(course.id) ? t('presets.assign.assigned') : <Text color="secondary">{t('presets.assign.notAssigned')}</Text>),
    },
  ];
  return (
    <>
      <Checkbox
        label={t('presets.assign.selectListed')}
        checked={courses.every((course) => selected.has(course.id))}
        onChange={(event) => onSelect(courses.map((course) => course.id), event.target.checked)}
      />
      <DataTable caption={t('presets.assign.caption', { name: preset.name })} columns={columns} rows={courses} rowKey={(course) => course.id} />
    </>
  );
}
