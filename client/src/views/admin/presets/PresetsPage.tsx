import { Button, Flex, Heading, IconAddLine, Pill, ScreenReaderContent, Tabs, Text, View } from '@instructure/ui';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ADMIN_TOOL_PRESET_LIMITS } from '@exb/shared/admin-tool-presets.js';
import { useAnnouncer } from '../../../components/Announcer';
import { EmptyState, QueryState } from '../../../components/QueryState';
import { StatusAlert } from '../../../components/StatusAlert';
import { readServerError, useTRPC } from '../../../lib/trpc';
import { hostOf } from '../../../lib/policy-rows';
import { AssignmentPicker } from './AssignmentPicker';
import type { Preset } from './model';
import { PresetForm } from './PresetForm';
import { PresetHistory } from './PresetHistory';

type Editing = { readonly preset: Preset | null } | null;

/** The account's school tool presets: their counts, create, edit, delete, the courses they go to, their history. */
export function PresetsPage() {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const presets = useQuery(trpc.admin.toolPresets.list.queryOptions());
  const [editing, setEditing] = useState<Editing>(null);
  // The preset whose edit left courses waiting for it: its card opens on its courses, where the rollout is offered.
  const [changed, setChanged] = useState<{ readonly presetId: string; readonly at: number } | null>(null);
  const [announcement, announce] = useAnnouncer();
  const count = presets.data?.presets.length ?? 0;

  return (
    <View as="section" display="block" aria-labelledby="presets-heading">
      {announcement}
      <Flex gap="small" justifyItems="space-between" alignItems="center" wrap="wrap" margin="0 0 small">
        <Heading level="h2" id="presets-heading">
          {t('presets.heading')}
        </Heading>
        {editing === null && (
          <Button renderIcon={<IconAddLine />} interaction={count >= ADMIN_TOOL_PRESET_LIMITS.perAccount ? 'disabled' : 'enabled'} onClick={() => setEditing({ preset: null })}>
            {t('presets.new')}
          </Button>
        )}
      </Flex>
      <Text as="p">{t('presets.intro', { count: ADMIN_TOOL_PRESET_LIMITS.perAccount })}</Text>
      {editing !== null && (
        <View as="div" margin="small 0">
          <PresetForm
            preset={editing.preset}
            onDone={(saved) => {
              const edit = editing.preset !== null;
              setEditing(null);
              if (saved === null) return;
              if (edit && saved.pendingAssignmentCount > 0) {
                announce(t('presets.savedWaiting', { name: saved.name, count: saved.pendingAssignmentCount }));
                setChanged({ presetId: saved.id, at: Date.now() });
              } else announce(t('presets.saved', { name: saved.name }));
            }}
          />
        </View>
      )}
      <QueryState query={presets} loading={t('presets.loading')} failed={(reason) => t('presets.loadFailed', { reason })}>
        {(data) =>
          data.presets.length === 0 ? (
            <EmptyState>
              <Text>{t('presets.none')}</Text>
            </EmptyState>
          ) : (
            <Flex direction="column" gap="small" margin="small 0 0">
              {data.presets.map((preset) => (
                <PresetCard
                  key={preset.id}
                  preset={preset}
                  changedAt={changed?.presetId === preset.id ? changed.at : undefined}
                  onEdit={() => setEditing({ preset })}
                  onDeleted={() => announce(t('presets.deleted', { name: preset.name }))}
                />
              ))}
            </Flex>
          )
        }
      </QueryState>
    </View>
  );
}

const PANELS = ['courses', 'history'] as const;

interface PresetCardProps {
  preset: Preset;
  /** When an edit of this preset left courses waiting for it: the card then opens on its courses. */
  changedAt: number | undefined;
  onEdit: () => void;
  onDeleted: () => void;
}

function PresetCard({ preset, changedAt, onEdit, onDeleted }: PresetCardProps) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [panel, setPanel] = useState<(typeof PANELS)[number]>('courses');
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    if (changedAt === undefined) return;
    setOpen(true);
    setPanel('courses');
  }, [changedAt]);
  const remove = useMutation(
    trpc.admin.toolPresets.delete.mutationOptions({
      onSuccess: () => {
        onDeleted();
        void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
      },
    }),
  );
  const headingId = `preset-${preset.id}`;
  const websites = preset.tool.resourceRules.length;
  return (
    <View as="article" display="block" padding="small" borderWidth="small" borderRadius="medium" aria-labelledby={headingId}>
      <Flex gap="small" wrap="wrap" justifyItems="space-between" alignItems="start">
        <Flex.Item shouldGrow shouldShrink size="16rem">
          <Heading level="h3" id={headingId}>
            {preset.name}
          </Heading>
          <Text as="p" size="small">
            {[preset.tool.label, hostOf(preset.tool.url), websites > 0 ? t('presets.moreWebsites', { count: websites }) : null].filter((part) => part !== null).join(' · ')}
          </Text>
          {preset.description !== '' && (
            <Text as="p" size="small" color="secondary">
              {preset.description}
            </Text>
          )}
          <Flex gap="x-small" wrap="wrap" margin="x-small 0 0">
            <Pill>{t('presets.assigned', { count: preset.assignedCourseCount })}</Pill>
            {preset.pendingAssignmentCount > 0 && <Pill color="info">{t('presets.pending', { count: preset.pendingAssignmentCount })}</Pill>}
            {preset.failedAssignmentCount > 0 && <Pill color="danger">{t('presets.failed', { count: preset.failedAssignmentCount })}</Pill>}
          </Flex>
        </Flex.Item>
        <Flex gap="x-small" wrap="wrap">
          <Button size="small" onClick={() => setOpen((value) => !value)} aria-expanded={open}>
            {open ? t('close') : t('presets.details')}
            <ScreenReaderContent> {open ? t('presets.closeFor', { name: preset.name }) : t('presets.detailsFor', { name: preset.name })}</ScreenReaderContent>
          </Button>
          <Button size="small" onClick={onEdit}>
            {t('presets.edit')}
            <ScreenReaderContent> {preset.name}</ScreenReaderContent>
          </Button>
          <Button size="small" color="secondary" onClick={() => setConfirming(true)}>
            {t('presets.delete')}
            <ScreenReaderContent> {preset.name}</ScreenReaderContent>
          </Button>
        </Flex>
      </Flex>
      {confirming && (
        <StatusAlert variant="warning" margin="small 0 0">
          <Text as="p">{t('presets.confirmDelete', { name: preset.name })}</Text>
          {remove.isError && (
            <Text as="p" color="danger">
              {readServerError(remove.error).message}
            </Text>
          )}
          <Flex gap="small" margin="x-small 0 0">
            <Button size="small" color="danger" interaction={remove.isPending ? 'disabled' : 'enabled'} onClick={() => remove.mutate({ presetId: preset.id })}>
              {t('presets.deleteConfirm')}
            </Button>
            <Button
              size="small"
              onClick={() => {
                setConfirming(false);
                remove.reset();
              }}
            >
              {t('presets.keep')}
            </Button>
          </Flex>
        </StatusAlert>
      )}
      {open && (
        <Tabs margin="small 0 0" onRequestTabChange={(_event, { index }) => setPanel(PANELS[index] ?? 'courses')} screenReaderLabel={t('presets.detailsOf', { name: preset.name })}>
          <Tabs.Panel id={`courses-${preset.id}`} renderTitle={t('presets.tab.courses')} isSelected={panel === 'courses'} padding="small 0">
            <AssignmentPicker preset={preset} />
          </Tabs.Panel>
          <Tabs.Panel id={`history-${preset.id}`} renderTitle={t('presets.tab.history')} isSelected={panel === 'history'} padding="small 0">
            <PresetHistory presetId={preset.id} />
          </Tabs.Panel>
        </Tabs>
      )}
    </View>
  );
}
