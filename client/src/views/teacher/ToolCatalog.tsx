import {
  Button,
  Checkbox,
  Flex,
  IconAddLine,
  IconCopyLine,
  IconEditLine,
  IconLockLine,
  Pill,
  ScreenReaderContent,
  Text,
  View,
} from '@instructure/ui';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useConnection } from './connection';
import { EditorSection } from './EditorSection';
import type { FieldFocus, FormError } from '../../lib/form-errors';
import { hostOf, type ToolRow } from '../../lib/policy-rows';
import { RemoveToolButton, ToolCard } from './ToolCard';
import { ToolFields } from '../../components/ToolFields';
import { toolRowActions } from './tool-rows';

/**
 * The course's exam tools, each folded to its name and address until the teacher edits it. School-managed tools can
 * only be switched on or off; saved instructor tools can be copied to other courses.
 */
export function ToolCatalog({
  tools,
  savedToolIds,
  editing,
  setEditing,
  onChange,
  onCopy,
  error,
  focus,
  sectionError,
}: {
  tools: readonly ToolRow[];
  savedToolIds: ReadonlySet<string>;
  editing: ReadonlySet<string>;
  setEditing: (next: ReadonlySet<string>) => void;
  onChange: (tools: ToolRow[]) => void;
  onCopy: (tool: { id: string; label: string }) => void;
  error: FormError | null;
  focus: FieldFocus;
  sectionError: ReactNode;
}) {
  const { t } = useTranslation('teacher');
  const connection = useConnection();
  const rows = toolRowActions(tools, onChange, focus, 'tools');
  const toggleEditing = (rowId: string, on: boolean) => {
    const next = new Set(editing);
    if (on) next.add(rowId);
    else next.delete(rowId);
    setEditing(next);
  };
  const add = () => toggleEditing(rows.add().rowId, true);
  // A refused field must be visible, so a tool with the refusal in it stays open.
  const errorIn = (tool: ToolRow) =>
    error?.key !== undefined &&
    (error.key.startsWith(`tool:${tool.rowId}:`) || tool.resourceRules.some((rule) => error.key?.startsWith(`rule:${rule.rowId}:`)));

  return (
    <EditorSection
      id="defaults-tools-heading"
      section="tools"
      heading={t('catalog.heading')}
      intro={t('catalog.intro')}
      alert={sectionError}
      focus={focus}
    >
      {tools.length === 0 && (
        <Text as="p" color="secondary">
          {t('catalog.empty')}
        </Text>
      )}
      {tools.map((tool, index) => {
        const name = tool.label.trim() || t('catalog.newTool', { n: index + 1 });
        const open = !tool.managedByAdmin && (editing.has(tool.rowId) || errorIn(tool));
        const saved = tool.id !== undefined && savedToolIds.has(tool.id);
        const ruleCount = tool.resourceRules.filter((rule) => rule.value.trim() !== '').length;
        return (
          <ToolCard key={tool.rowId} name={name} background={tool.enabled ? 'primary' : 'secondary'}>
            <Flex gap="small" wrap="wrap" alignItems="start" justifyItems="space-between">
              <Flex.Item shouldGrow shouldShrink size="14rem">
                <Flex gap="x-small" alignItems="center" wrap="wrap">
                  {tool.managedByAdmin && <IconLockLine />}
                  <Text weight="bold">{name}</Text>
                  {tool.managedByAdmin && <Pill>{t('catalog.schoolManaged')}</Pill>}
                  {!saved && <Pill color="info">{t('catalog.notSaved')}</Pill>}
                </Flex>
                <Text as="div" size="small" color="secondary">
                  {tool.url.trim() === '' ? t('catalog.noLaunchAddress') : hostOf(tool.url)}
                  {ruleCount > 0 ? ` · ${t('catalog.moreWebsites', { count: ruleCount })}` : ''}
                </Text>
              </Flex.Item>
              <Flex.Item>
                <Checkbox
                  variant="toggle"
                  size="small"
                  labelPlacement="start"
                  label={
                    <>
                      {t('catalog.available')}
                      <ScreenReaderContent>: {name}</ScreenReaderContent>
                    </>
                  }
                  checked={tool.enabled}
                  onChange={(event) => rows.update(tool.rowId, { enabled: event.target.checked })}
                />
              </Flex.Item>
            </Flex>
            {tool.managedByAdmin ? (
              <Text as="p" size="small" color="secondary">
                {t('catalog.managedNote')}
              </Text>
            ) : (
              <Flex gap="x-small" wrap="wrap" margin="x-small 0 0">
                <Button size="small" renderIcon={<IconEditLine />} onClick={() => toggleEditing(tool.rowId, !open)} aria-expanded={open}>
                  {open ? t('action.done') : t('action.edit')}
                  <ScreenReaderContent> {name}</ScreenReaderContent>
                </Button>
                {saved && tool.id !== undefined && (
                  <Button
                    size="small"
                    renderIcon={<IconCopyLine />}
                    onClick={() => onCopy({ id: tool.id!, label: tool.label })}
                    interaction={connection.connected === false ? 'disabled' : 'enabled'}
                  >
                    {t('catalog.copy')}
                    <ScreenReaderContent> ({name})</ScreenReaderContent>
                  </Button>
                )}
                <RemoveToolButton name={name} onRemove={() => rows.remove(tool.rowId)} />
              </Flex>
            )}
            {open && (
              <View as="div" margin="small 0 0">
                <ToolFields tool={tool} onChange={(change) => rows.update(tool.rowId, change)} error={error} focus={focus} />
              </View>
            )}
          </ToolCard>
        );
      })}
      <Button renderIcon={<IconAddLine />} onClick={add}>
        {t('catalog.add')}
      </Button>
    </EditorSection>
  );
}
