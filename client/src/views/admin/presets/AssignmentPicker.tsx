import { Alert, Button, Checkbox, Flex, Heading, IconSearchLine, ScreenReaderContent, Spinner, Table, Text, TextInput, View } from '@instructure/ui';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { normalizeAdminSearch } from '@exb/shared/admin-courses.js';
import { ADMIN_TOOL_PRESET_LIMITS } from '@exb/shared/admin-tool-presets.js';
import { readServerError, useTRPC } from '../../../lib/trpc';
import { useMediaQuery } from '../../../lib/use-media-query';
import type { Preset } from './model';
import { RolloutProgress, type RolloutRun } from './RolloutProgress';

const SEARCH_DELAY_MS = 300;
const PICKER_PAGE_SIZE = 50;

/**
 * Chooses the connected courses a preset goes to (or leaves): search, select what is listed, or all connected courses
 * at once. The rollout then runs with visible progress.
 */
export function AssignmentPicker({ preset }: { preset: Preset }) {
  const trpc = useTRPC();
  const narrow = useMediaQuery('(max-width: 44rem)');
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [everyCourse, setEveryCourse] = useState(false);
  const [run, setRun] = useState<RolloutRun | null>(null);
  const assigned = useMemo(() => new Set(preset.assignedCourseIds), [preset.assignedCourseIds]);

  useEffect(() => {
    const timer = window.setTimeout(() => setSearch(normalizeAdminSearch(text)), SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [text]);

  const courses = useQuery({
    ...trpc.admin.courses.list.queryOptions({ search, includePast: true, limit: PICKER_PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const assign = useMutation(
    trpc.admin.toolPresets.assign.mutationOptions({
      onSuccess: (answer) => {
        setRun({ presetId: preset.id, total: answer.queuedCount, rollout: answer.rollout, retryFailed: false });
        setSelected(new Set());
        setEveryCourse(false);
      },
    }),
  );
  const listed = courses.data?.courses ?? [];
  const allListedSelected = listed.length > 0 && listed.every((course) => selected.has(course.id));
  const count = everyCourse ? null : selected.size;
  const toggle = (id: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const submit = (on: boolean) =>
    assign.mutate({ presetId: preset.id, assigned: on, all: everyCourse, ...(everyCourse ? {} : { courseIds: [...selected] }) });
  const failure = assign.isError ? readServerError(assign.error) : null;

  return (
    <View as="section" display="block" aria-labelledby={`assign-${preset.id}`}>
      <Heading level="h4" id={`assign-${preset.id}`} margin="0 0 x-small">
        Courses with “{preset.name}”
      </Heading>
      <Text as="p" size="small">
        Assigned to {preset.assignedCourseCount} {preset.assignedCourseCount === 1 ? 'course' : 'courses'}. Instructors can switch the tool on or off
        for a quiz, but cannot change or copy it.
      </Text>
      {run === null && preset.pendingAssignmentCount > 0 && (
        <Alert variant="info" variantScreenReaderLabel="Information," hasShadow={false} margin="small 0">
          <Flex gap="small" alignItems="center" wrap="wrap">
            <Flex.Item shouldGrow shouldShrink>
              {preset.pendingAssignmentCount} {preset.pendingAssignmentCount === 1 ? 'course waits' : 'courses wait'} for the current definition of this preset.
            </Flex.Item>
            <Button
              size="small"
              onClick={() => {
                const pending = preset.pendingAssignmentCount;
                setRun({ presetId: preset.id, total: pending, rollout: { processed: 0, applied: 0, failed: 0, pending }, retryFailed: false });
              }}
            >
              Update the courses now
            </Button>
          </Flex>
        </Alert>
      )}
      {run !== null && (
        <RolloutProgress
          run={run}
          onRetry={(failedCount) => setRun({ presetId: preset.id, total: Math.max(failedCount, preset.failedAssignmentCount), rollout: { processed: 0, applied: 0, failed: 0, pending: failedCount }, retryFailed: true })}
        />
      )}
      <Flex gap="small" wrap="wrap" alignItems="end" margin="small 0">
        <Flex.Item shouldGrow shouldShrink size="14rem">
          <TextInput
            renderLabel="Search connected courses"
            placeholder="Name, course code or id"
            type="search"
            value={text}
            onChange={(_event, value) => setText(value)}
            renderBeforeInput={<IconSearchLine inline={false} />}
            interaction={everyCourse ? 'disabled' : 'enabled'}
          />
        </Flex.Item>
        <Flex.Item>
          <Checkbox
            label={`All connected courses (up to ${ADMIN_TOOL_PRESET_LIMITS.rolloutCourses.toLocaleString('en-US')})`}
            checked={everyCourse}
            onChange={(event) => setEveryCourse(event.target.checked)}
          />
        </Flex.Item>
      </Flex>
      {!everyCourse && (
        <View as="div" position="relative">
          {courses.isPending ? (
            <Spinner renderTitle="Loading the connected courses" size="small" />
          ) : courses.isError ? (
            <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
              The courses could not be loaded: {readServerError(courses.error).message}
            </Alert>
          ) : listed.length === 0 ? (
            <Text as="p">{search !== '' ? `No connected course matches “${search}”.` : 'No courses are connected yet.'}</Text>
          ) : (
            <>
            <Checkbox
              label="Select every listed course"
              checked={allListedSelected}
              onChange={(event) => {
                const on = event.target.checked;
                setSelected((current) => {
                  const next = new Set(current);
                  for (const course of listed) if (on) next.add(course.id);
                  else next.delete(course.id);
                  return next;
                });
              }}
            />
            <Table caption={`Connected courses to assign “${preset.name}” to`} layout={narrow ? 'stacked' : 'auto'}>
              <Table.Head>
                <Table.Row>
                  <Table.ColHeader id="pick" width="3rem">
                    <ScreenReaderContent>Select</ScreenReaderContent>
                  </Table.ColHeader>
                  <Table.ColHeader id="pick-course">Course</Table.ColHeader>
                  <Table.ColHeader id="pick-code">Code</Table.ColHeader>
                  <Table.ColHeader id="pick-state">Preset</Table.ColHeader>
                </Table.Row>
              </Table.Head>
              <Table.Body>
                {listed.map((course) => (
                  <Table.Row key={course.id}>
                    <Table.Cell>
                      <Checkbox
                        label={<ScreenReaderContent>Select {course.name}</ScreenReaderContent>}
                        checked={selected.has(course.id)}
                        onChange={(event) => toggle(course.id, event.target.checked)}
                      />
                    </Table.Cell>
                    <Table.RowHeader>{course.name}</Table.RowHeader>
                    <Table.Cell>{course.courseCode || '—'}</Table.Cell>
                    <Table.Cell>{assigned.has(course.id) ? 'Assigned' : <Text color="secondary">Not assigned</Text>}</Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table>
            </>
          )}
          {courses.data?.nextCursor !== null && courses.data !== undefined && (
            <Text as="p" size="small" color="secondary">
              Showing the first {PICKER_PAGE_SIZE} courses; search to find others, or choose all connected courses.
            </Text>
          )}
        </View>
      )}
      {failure !== null && (
        <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false} margin="small 0 0">
          {failure.message}
        </Alert>
      )}
      <Flex gap="small" margin="small 0 0" wrap="wrap">
        <Button color="primary" interaction={(count === 0 || assign.isPending) ? 'disabled' : 'enabled'} onClick={() => submit(true)}>
          {count === null ? 'Assign to all connected courses' : `Assign to ${count} selected`}
        </Button>
        <Button interaction={(count === 0 || assign.isPending) ? 'disabled' : 'enabled'} onClick={() => submit(false)}>
          {count === null ? 'Remove from all connected courses' : `Remove from ${count} selected`}
        </Button>
      </Flex>
    </View>
  );
}
