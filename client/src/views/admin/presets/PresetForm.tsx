import { Button, Flex, Heading, TextArea, TextInput, View } from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ADMIN_TOOL_PRESET_LIMITS, normalizePresetInput } from '@exb/shared/admin-tool-presets.js';
import { StatusAlert } from '../../../components/StatusAlert';
import { i18next } from '../../../i18n/i18n';
import { readServerError, useTRPC, type ServerError } from '../../../lib/trpc';
import { locateError, messagesFor, useFieldFocus, type FormError } from '../../../lib/form-errors';
import { emptyToolRow, submitTool, toolRowOf, type ToolRow } from '../../../lib/policy-rows';
import { ToolFields } from '../../../components/ToolFields';
import type { Preset } from './model';

const NAME_KEY = 'preset:name';
const DESCRIPTION_KEY = 'preset:description';

type TextField = 'name' | 'description';

/**
 * What is wrong with the preset's name or description, in the page's language. The shared rules (and the service,
 * which applies them again) say it in English; what they refuse follows from the value itself: missing, too long, or
 * with control or text-direction characters.
 */
function textFieldMessage(field: TextField, value: string): string {
  const text = value.normalize('NFC').trim();
  const max = field === 'name' ? ADMIN_TOOL_PRESET_LIMITS.nameLength : ADMIN_TOOL_PRESET_LIMITS.descriptionLength;
  if (text === '') return i18next.t(`admin:presets.form.${field}.required`);
  if (text.length > max) return i18next.t(`admin:presets.form.${field}.tooLong`, { count: max });
  return i18next.t(`admin:presets.form.${field}.invalidCharacters`);
}

/**
 * A refusal (from the shared rules here, or from the service) at the field it is about: name and description by their
 * own keys, the tool's fields through the editor pieces the instructor's catalog uses.
 */
function locate(
  error: Pick<ServerError, 'message' | 'errorCode' | 'path'>,
  submitted: ReturnType<typeof submitTool>,
  values: Record<TextField, string>,
): FormError {
  const [head, ...rest] = error.path ?? [];
  if (head === 'name') return { key: NAME_KEY, message: textFieldMessage('name', values.name), errorCode: error.errorCode };
  if (head === 'description') return { key: DESCRIPTION_KEY, message: textFieldMessage('description', values.description), errorCode: error.errorCode };
  if (head === 'tool') {
    const located = locateError(
      { ...error, path: ['externalTools', 0, ...rest], httpStatus: 400, authUrl: undefined },
      { toolLists: { externalTools: [submitted] } },
    );
    return { ...located, key: located.key === 'section:tools' ? `tool:${submitted.rowId}:url` : located.key };
  }
  return { key: undefined, message: error.message, errorCode: error.errorCode };
}

/** Create or edit a preset. The shared rules check it before it is sent; the service checks it again. */
export function PresetForm({ preset, onDone }: { preset: Preset | null; onDone: (saved: Preset | null) => void }) {
  const { t } = useTranslation('admin');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const focus = useFieldFocus();
  const [name, setName] = useState(preset?.name ?? '');
  const [description, setDescription] = useState(preset?.description ?? '');
  const [tool, setTool] = useState<ToolRow>(() =>
    preset === null ? emptyToolRow() : toolRowOf({ ...preset.tool, id: 'preset', managedByAdmin: false, enabled: true }),
  );
  const [error, setError] = useState<FormError | null>(null);
  const onSaved = (saved: Preset) => {
    void queryClient.invalidateQueries({ queryKey: trpc.admin.pathKey() });
    onDone(saved);
  };
  const create = useMutation(trpc.admin.toolPresets.create.mutationOptions({ onSuccess: (result) => onSaved(result.preset) }));
  const update = useMutation(trpc.admin.toolPresets.update.mutationOptions({ onSuccess: (result) => onSaved(result.preset) }));
  const pending = create.isPending || update.isPending;

  const show = (located: FormError) => {
    setError(located);
    window.setTimeout(() => focus.focus(located.key), 0);
  };

  const submit = () => {
    const submitted = submitTool({ ...tool, id: undefined });
    const body = { name, description, tool: submitted.tool };
    const checked = normalizePresetInput(body, { baseUrl: window.location.origin });
    if (!checked.ok) return show(locate({ ...checked.error, errorCode: checked.error.errorCode }, submitted, { name, description }));
    setError(null);
    const onError = (failure: unknown) => show(locate(readServerError(failure), submitted, { name, description }));
    if (preset === null) create.mutate(body, { onError });
    else update.mutate({ presetId: preset.id, ...body }, { onError });
  };

  return (
    <View as="section" display="block" padding="medium" borderWidth="small" borderRadius="medium" aria-labelledby="preset-form-heading">
      <Heading level="h3" id="preset-form-heading" margin="0 0 small">
        {preset === null ? t('presets.form.newHeading') : t('presets.form.editHeading', { name: preset.name })}
      </Heading>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Flex direction="column" gap="small">
          <TextInput
            renderLabel={t('presets.form.name.label')}
            value={name}
            onChange={(_event, value) => setName(value)}
            messages={messagesFor(error, NAME_KEY) ?? [{ type: 'hint', text: t('presets.form.name.hint', { count: ADMIN_TOOL_PRESET_LIMITS.nameLength }) }]}
            inputRef={focus.register(NAME_KEY)}
            isRequired
          />
          <TextArea
            label={t('presets.form.description.label')}
            value={description}
            onChange={(event) => setDescription(event.target.value)}
            messages={messagesFor(error, DESCRIPTION_KEY) ?? [{ type: 'hint', text: t('presets.form.description.hint', { count: ADMIN_TOOL_PRESET_LIMITS.descriptionLength }) }]}
            textareaRef={focus.register(DESCRIPTION_KEY)}
            height="4rem"
          />
          <ToolFields tool={tool} onChange={(change) => setTool((current) => ({ ...current, ...change }))} error={error} focus={focus} disabled={pending} />
          {error !== null && error.key === undefined && <StatusAlert>{error.message}</StatusAlert>}
          <Flex gap="small" justifyItems="end">
            <Button onClick={() => onDone(null)} interaction={pending ? 'disabled' : 'enabled'}>
              {t('cancel')}
            </Button>
            <Button type="submit" color="primary" interaction={pending ? 'disabled' : 'enabled'}>
              {preset === null ? t('presets.form.create') : t('presets.form.save')}
            </Button>
          </Flex>
        </Flex>
      </form>
    </View>
  );
}
