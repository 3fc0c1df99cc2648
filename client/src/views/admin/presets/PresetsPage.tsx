import { Alert, Button, Flex, Heading, IconAddLine, Pill, ScreenReaderContent, Spinner, Tabs, Text, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ADMIN_TOOL_PRESET_LIMITS } from '@exb/shared/admin-tool-presets.js';
import { useAnnouncer } from '../../../components/Announcer';
import { readServerError, useTRPC } from '../../../lib/trpc';
import { hostOf } from '../../teacher/model';
import { AssignmentPicker } from './AssignmentPicker';
import type { Preset } from './model';
import { PresetForm } from './PresetForm';
import { PresetHistory } from './PresetHistory';

type Editing = { readonly preset: Preset | null } | null;

/** The account's school tool presets: their counts, create, edit, delete, the courses they go to, their history. */
export function PresetsPage() {
  const trpc = useTRPC();
  const presets = useQuery(trpc.admin.toolPresets.list.queryOptions());
  const [editing, setEditing] = useState<Editing>(null);
  const [announcement, announce] = useAnnouncer();
  const count = presets.data?.presets.length ?? 0;

  return (
    <View as="section" display="block" aria-labelledby="presets-heading">
      {announcement}
      <Flex gap="small" justifyItems="space-between" alignItems="center" wrap="wrap" margin="0 0 small">
        <Heading level="h2" id="presets-heading">
          School tool presets
        </Heading>
        {editing === null && (
          <Button renderIcon={<IconAddLine />} interaction={count >= ADMIN_TOOL_PRESET_LIMITS.perAccount ? 'disabled' : 'enabled'} onClick={() => setEditing({ preset: null })}>
            New preset
          </Button>
        )}
      </Flex>
      <Text as="p">
        A preset is an exam tool the school approves once (a calculator, a dictionary) and rolls out to connected courses. Up to{' '}
        {ADMIN_TOOL_PRESET_LIMITS.perAccount} presets per account.
      </Text>
      {editing !== null && (
        <View as="div" margin="small 0">
          <PresetForm
            preset={editing.preset}
            onDone={(saved) => {
              setEditing(null);
              if (saved !== null) announce(`Preset “${saved.name}” saved.`);
            }}
          />
        </View>
      )}
      {presets.isPending ? (
        <Spinner renderTitle="Loading the presets" size="small" />
      ) : presets.isError ? (
        <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
          The presets could not be loaded: {readServerError(presets.error).message}
        </Alert>
      ) : presets.data.presets.length === 0 ? (
        <View as="div" padding="medium" borderWidth="small" borderRadius="medium" textAlign="center">
          <Text>No presets yet.</Text>
        </View>
      ) : (
        <Flex direction="column" gap="small" margin="small 0 0">
          {presets.data.presets.map((preset) => (
            <PresetCard key={preset.id} preset={preset} onEdit={() => setEditing({ preset })} onDeleted={() => announce(`Preset “${preset.name}” deleted.`)} />
          ))}
        </Flex>
      )}
    </View>
  );
}

const PANELS = ['courses', 'history'] as const;

function PresetCard({ preset, onEdit, onDeleted }: { preset: Preset; onEdit: () => void; onDeleted: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [panel, setPanel] = useState<(typeof PANELS)[number]>('courses');
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.admin.toolPresets.delete.mutationOptions({
      onSuccess: () => {
        onDeleted();
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
    }),
  );
  const headingId = `preset-${preset.id}`;
  return (
    <View as="article" display="block" padding="small" borderWidth="small" borderRadius="medium" aria-labelledby={headingId}>
      <Flex gap="small" wrap="wrap" justifyItems="space-between" alignItems="start">
        <Flex.Item shouldGrow shouldShrink size="16rem">
          <Heading level="h3" id={headingId}>
            {preset.name}
          </Heading>
          <Text as="p" size="small">
            {preset.tool.label} · {hostOf(preset.tool.url)}
            {preset.tool.resourceRules.length > 0 ? ` · ${preset.tool.resourceRules.length} more ${preset.tool.resourceRules.length === 1 ? 'website' : 'websites'}` : ''}
          </Text>
          {preset.description !== '' && (
            <Text as="p" size="small" color="secondary">
              {preset.description}
            </Text>
          )}
          <Flex gap="x-small" wrap="wrap" margin="x-small 0 0">
            <Pill>{preset.assignedCourseCount} assigned</Pill>
            {preset.pendingAssignmentCount > 0 && <Pill color="info">{preset.pendingAssignmentCount} pending</Pill>}
            {preset.failedAssignmentCount > 0 && <Pill color="danger">{preset.failedAssignmentCount} failed</Pill>}
          </Flex>
        </Flex.Item>
        <Flex gap="x-small" wrap="wrap">
          <Button size="small" onClick={() => setOpen((value) => !value)} aria-expanded={open}>
            {open ? 'Close' : 'Courses and history'}
            <ScreenReaderContent>{` of ${preset.name}`}</ScreenReaderContent>
          </Button>
          <Button size="small" onClick={onEdit}>
            Edit<ScreenReaderContent>{` ${preset.name}`}</ScreenReaderContent>
          </Button>
          <Button size="small" color="secondary" onClick={() => setConfirming(true)}>
            Delete<ScreenReaderContent>{` ${preset.name}`}</ScreenReaderContent>
          </Button>
        </Flex>
      </Flex>
      {confirming && (
        <Alert variant="warning" variantScreenReaderLabel="Warning," hasShadow={false} margin="small 0 0">
          <Text as="p">Delete “{preset.name}”? Its history stays in the audit trail.</Text>
          {remove.isError && <Text as="p" color="danger">{readServerError(remove.error).message}</Text>}
          <Flex gap="small" margin="x-small 0 0">
            <Button size="small" color="danger" interaction={remove.isPending ? 'disabled' : 'enabled'} onClick={() => remove.mutate({ presetId: preset.id })}>
              Delete preset
            </Button>
            <Button size="small" onClick={() => { setConfirming(false); remove.reset(); }}>
              Keep it
            </Button>
          </Flex>
        </Alert>
      )}
      {open && (
        <Tabs margin="small 0 0" onRequestTabChange={(_event, { index }) => setPanel(PANELS[index] ?? 'courses')} screenReaderLabel={`${preset.name} details`}>
          <Tabs.Panel id={`courses-${preset.id}`} renderTitle="Courses" isSelected={panel === 'courses'} padding="small 0">
            <AssignmentPicker preset={preset} />
          </Tabs.Panel>
          <Tabs.Panel id={`history-${preset.id}`} renderTitle="History" isSelected={panel === 'history'} padding="small 0">
            <PresetHistory presetId={preset.id} />
          </Tabs.Panel>
        </Tabs>
      )}
    </View>
  );
}
