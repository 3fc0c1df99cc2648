import { Flex, TextInput, ToggleDetails, View } from '@instructure/ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fieldKey, messagesFor, type FieldFocus, type FormError } from '../lib/form-errors';
import type { RuleRow, ToolRow } from '../lib/policy-rows';
import { readDifferentlyReason } from '../lib/read-differently';
import { UrlRulesEditor } from './UrlRulesEditor';

/** Name, launch address and extra websites of one tool the teacher defines. */
export function ToolFields({
  tool,
  onChange,
  error,
  focus,
  disabled = false,
}: {
  tool: ToolRow;
  onChange: (change: Partial<ToolRow>) => void;
  error: FormError | null;
  focus: FieldFocus;
  disabled?: boolean;
}) {
  const { t } = useTranslation('teacher');
  const labelKey = fieldKey.toolLabel(tool.rowId);
  const urlKey = fieldKey.toolUrl(tool.rowId);
  const ruleCount = tool.resourceRules.filter((rule) => rule.value.trim() !== '').length;
  const ruleErrorHere = error?.key !== undefined && tool.resourceRules.some((rule) => error.key?.startsWith(`rule:${rule.rowId}:`));
  const [open, setOpen] = useState(ruleCount > 0);
  const reason = readDifferentlyReason(tool.url, { withSiteRoot: true });
  return (
    <View as="div">
      <Flex gap="small" wrap="wrap" alignItems="start">
        <Flex.Item size="12rem" shouldShrink>
          <TextInput
            renderLabel={t('tool.name')}
            value={tool.label}
            onChange={(_event, label) => onChange({ label })}
            messages={messagesFor(error, labelKey)}
            interaction={disabled ? 'disabled' : 'enabled'}
            inputRef={focus.register(labelKey)}
            maxLength={80}
          />
        </Flex.Item>
        <Flex.Item shouldGrow shouldShrink size="16rem">
          <TextInput
            renderLabel={t('tool.launchAddress')}
            value={tool.url}
            placeholder="https://calculator.example.com/app"
            onChange={(_event, url) => onChange({ url })}
            messages={
              messagesFor(error, urlKey) ?? [{ type: 'hint', text: reason === null ? t('tool.launchHint') : t('rules.readDifferently', { reason }) }]
            }
            interaction={disabled ? 'disabled' : 'enabled'}
            inputRef={focus.register(urlKey)}
            spellCheck={false}
            autoComplete="off"
          />
        </Flex.Item>
      </Flex>
      <View as="div" margin="small 0 0">
        <ToggleDetails
          summary={ruleCount > 0 ? t('tool.otherWebsitesCount', { count: ruleCount }) : t('tool.otherWebsites')}
          // A refused rule must be visible, or the message next to it (and the focus moved there) would be lost.
          expanded={open || ruleErrorHere}
          onToggle={(_event, expanded) => setOpen(expanded)}
          size="small"
        >
          <UrlRulesEditor
            rows={tool.resourceRules}
            onChange={(resourceRules: RuleRow[]) => onChange({ resourceRules })}
            kind={{ group: 'toolWebsite', tool: tool.label.trim() }}
            addLabel={t('tool.addWebsite')}
            error={error}
            focus={focus}
            disabled={disabled}
          />
        </ToggleDetails>
      </View>
    </View>
  );
}
