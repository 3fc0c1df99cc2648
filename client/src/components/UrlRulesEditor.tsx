import {
  Button,
  Checkbox,
  Flex,
  IconAddLine,
  IconTrashLine,
  IconButton,
  SimpleSelect,
  Text,
  TextInput,
  View,
} from '@instructure/ui';
import { siteOfAddress, wholeSiteConfirmationMessage } from '@exb/shared/exb-policy.js';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { translatePolicyMessage } from '../lib/trpc';
import { fieldKey, messagesFor, type FieldFocus, type FormError } from '../lib/form-errors';
import { readDifferentlyReason } from '../lib/read-differently';
import { emptyRuleRow, updateRow, withoutRow, type RuleRow } from '../lib/policy-rows';

/** Whose rules a list holds, which names its rows for screen readers ("Website 2", "Calculator website 1"). */
export type RuleListKind = { group: 'website' | 'courseWebsite' } | { group: 'toolWebsite'; tool: string };

interface RowNames {
  row: (n: number) => string;
  remove: (n: number) => string;
  list: string;
}

function useRowNames(kind: RuleListKind): RowNames {
  const { t } = useTranslation('teacher');
  if (kind.group === 'toolWebsite' && kind.tool !== '') {
    const tool = kind.tool;
    return {
      row: (n) => t('rules.toolWebsite.row', { tool, n }),
      remove: (n) => t('rules.toolWebsite.remove', { tool, n }),
      list: t('rules.toolWebsite.list', { tool }),
    };
  }
  const group = kind.group === 'toolWebsite' ? 'unnamedToolWebsite' : kind.group;
  return {
    row: (n) => t(`rules.${group}.row`, { n }),
    remove: (n) => t(`rules.${group}.remove`, { n }),
    list: t(`rules.${group}.list`),
  };
}

export type UrlRulesEditorProps = {
  rows: readonly RuleRow[];
  onChange: (rows: RuleRow[]) => void;
  kind: RuleListKind;
  /** Text of the add button. */
  addLabel: string;
  error: FormError | null;
  focus: FieldFocus;
  /** Drops the refusal shown at a row's fields when the row changes between a page and a whole site. */
  withdrawError?: (keys: readonly string[]) => void;
  disabled?: boolean;
};

/**
 * Allow rules of an exam-browser URL filter. A rule is either one exact HTTPS page or a whole site; a whole site also
 * allows every subdomain, so the teacher confirms that breadth per rule, as the server requires.
 */
export function UrlRulesEditor({ rows, onChange, kind, addLabel, error, focus, withdrawError, disabled = false }: UrlRulesEditorProps) {
  const { t } = useTranslation('teacher');
  const names = useRowNames(kind);
  const update = (rowId: string, change: Partial<RuleRow>) => {
    // A refusal of the address says nothing about the site the row now asks for, and the reverse.
    const before = rows.find((row) => row.rowId === rowId);
    if (change.match !== undefined && before !== undefined && change.match !== before.match) {
      withdrawError?.([fieldKey.ruleValue(rowId), fieldKey.ruleConfirm(rowId)]);
    }
    onChange(updateRow(rows, rowId, change));
  };
  const addButton = useRef<HTMLElement | null>(null);
  const remove = (rowId: string) => {
    onChange(withoutRow(rows, rowId));
    // The removed row took the focused button with it; the add button is the next thing to act on.
    addButton.current?.focus();
  };
  const add = () => {
    const row = emptyRuleRow();
    onChange([...rows, row]);
    // The new field exists after this render; focusing it keeps keyboard users in place.
    window.setTimeout(() => focus.focus(fieldKey.ruleValue(row.rowId)), 0);
  };

  return (
    <View as="div">
      {/* What the exam browser's URL filter really does with exact addresses (see `exactRuleMismatch` in the shared
          policy module): the server refuses the forms it would misread, and this says the one it cannot refuse. */}
      <Text as="p" size="small" color="secondary">
        {t('rules.help')}
      </Text>
      {rows.length > 0 && (
        <ol aria-label={names.list} style={{ listStyle: 'none', margin: 0, padding: 0 }}>
          {rows.map((row, index) => (
            <RuleRowFields
              key={row.rowId}
              row={row}
              name={names.row(index + 1)}
              removeLabel={names.remove(index + 1)}
              error={error}
              focus={focus}
              disabled={disabled}
              onChange={(change) => update(row.rowId, change)}
              onRemove={() => remove(row.rowId)}
            />
          ))}
        </ol>
      )}
      <Button
        renderIcon={<IconAddLine />}
        onClick={add}
        interaction={disabled ? 'disabled' : 'enabled'}
        margin="x-small 0 0"
        elementRef={(element) => void (addButton.current = element instanceof HTMLElement ? element : null)}
      >
        {addLabel}
      </Button>
    </View>
  );
}

function RuleRowFields({
  row,
  name,
  removeLabel,
  error,
  focus,
  disabled,
  onChange,
  onRemove,
}: {
  row: RuleRow;
  name: string;
  removeLabel: string;
  error: FormError | null;
  focus: FieldFocus;
  disabled: boolean;
  onChange: (change: Partial<RuleRow>) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation('teacher');
  const valueKey = fieldKey.ruleValue(row.rowId);
  const confirmKey = fieldKey.ruleConfirm(row.rowId);
  // A site is asked for, but people paste the address bar: the field keeps the site of it. A paste becomes its site at
  // once; typed text when the field is left, so nothing is cut while it is still being typed.
  const pasted = useRef(false);
  const reason = row.match === 'exact' ? readDifferentlyReason(row.value) : null;
  const readDifferentlyMessages = reason === null ? undefined : [{ type: 'hint' as const, text: t('rules.readDifferently', { reason }) }];
  const asSite = (value: string) => {
    const site = siteOfAddress(value);
    return site === value.trim() ? value : site;
  };
  return (
    <li>
      <View
        as="div"
        role="group"
        aria-label={name}
        padding="small"
        margin="0 0 x-small"
        borderWidth="small"
        borderRadius="medium"
      >
        {/* The fields wrap below each other in a narrow frame; the remove button stays beside them. */}
        <Flex gap="small" alignItems="start">
          <Flex.Item shouldGrow shouldShrink>
            <Flex gap="small" wrap="wrap" alignItems="start">
              <Flex.Item size="12rem" shouldShrink>
                <SimpleSelect
                  renderLabel={t('rules.allow')}
                  value={row.match}
                  interaction={disabled ? 'disabled' : 'enabled'}
                  onChange={(_event, { value }) =>
                    onChange(value === 'domain' ? { match: 'domain', value: asSite(row.value) } : { match: 'exact' })
                  }
                >
                  <SimpleSelect.Option id={`${row.rowId}-exact`} value="exact">
                    {t('rules.exact')}
                  </SimpleSelect.Option>
                  <SimpleSelect.Option id={`${row.rowId}-domain`} value="domain">
                    {t('rules.domain')}
                  </SimpleSelect.Option>
                </SimpleSelect>
              </Flex.Item>
              <Flex.Item shouldGrow shouldShrink size="14rem">
                <TextInput
                  renderLabel={row.match === 'exact' ? t('rules.pageAddress') : t('rules.site')}
                  value={row.value}
                  placeholder={row.match === 'exact' ? 'https://library.example.edu/reserves' : 'example.edu'}
                  onChange={(_event, value) => {
                    const fromPaste = row.match === 'domain' && pasted.current;
                    pasted.current = false;
                    onChange({ value: fromPaste ? asSite(value) : value });
                  }}
                  onPaste={() => void (pasted.current = true)}
                  onBlur={() => {
                    if (row.match === 'domain' && asSite(row.value) !== row.value) onChange({ value: asSite(row.value) });
                  }}
                  messages={messagesFor(error, valueKey) ?? readDifferentlyMessages}
                  interaction={disabled ? 'disabled' : 'enabled'}
                  inputRef={focus.register(valueKey)}
                  spellCheck={false}
                  autoComplete="off"
                />
              </Flex.Item>
            </Flex>
          </Flex.Item>
          <Flex.Item padding="medium 0 0">
            <IconButton
              screenReaderLabel={removeLabel}
              renderIcon={<IconTrashLine />}
              withBackground={false}
              withBorder={false}
              onClick={onRemove}
              interaction={disabled ? 'disabled' : 'enabled'}
            />
          </Flex.Item>
        </Flex>
        {row.match === 'domain' && (
          <View as="div" margin="small 0 0">
            <Checkbox
              // The words a refusal quotes when this is not ticked: both come from the one rule.
              label={translatePolicyMessage(wholeSiteConfirmationMessage(row.value))}
              checked={row.broadDomainConfirmed}
              onChange={(event) => onChange({ broadDomainConfirmed: event.target.checked })}
              messages={messagesFor(error, confirmKey)}
              disabled={disabled}
              inputRef={focus.register(confirmKey)}
            />
          </View>
        )}
      </View>
    </li>
  );
}
