import { Alert, Button, Flex, Heading, TextArea, TextInput, View } from '@instructure/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ADMIN_TOOL_PRESET_LIMITS, normalizePresetInput } from '@exb/shared/admin-tool-presets.js';
import { readServerError, useTRPC, type ServerError } from '../../../lib/trpc';
import { locateError, messagesFor, useFieldFocus, type FormError } from '../../teacher/form-errors';
import { emptyToolRow, submitTool, toolRowOf, type ToolRow } from '../../teacher/model';
import { ToolFields } from '../../teacher/ToolFields';
import type { Preset } from './model';

const NAME_KEY = 'preset:name';
const DESCRIPTION_KEY = 'preset:description';

/**
 * A refusal (from the shared rules here, or from the service) at the field it is about: name and description by their
 * own keys, the tool's fields through the editor pieces the instructor's catalog uses.
 */
function locate(error: Pick<ServerError, 'message' | 'errorCode' | 'path'>, submitted: ReturnType<typeof submitTool>): FormError {
  const [head, ...rest] = error.path ?? [];
  if (head === 'name') return { key: NAME_KEY, message: error.message, errorCode: error.errorCode };
  if (head === 'description') return { key: DESCRIPTION_KEY, message: error.message, errorCode: error.errorCode };
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
    if (!checked.ok) return show(locate({ ...checked.error, errorCode: checked.error.errorCode }, submitted));
    setError(null);
    const onError = (failure: unknown) => show(locate(readServerError(failure), submitted));
    if (preset === null) create.mutate(body, { onError });
    else update.mutate({ presetId: preset.id, ...body }, { onError });
  };

  return (
    <View as="section" display="block" padding="medium" borderWidth="small" borderRadius="medium" aria-labelledby="preset-form-heading">
      <Heading level="h3" id="preset-form-heading" margin="0 0 small">
        {preset === null ? 'New tool preset' : `Edit “${preset.name}”`}
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
            renderLabel="Preset name"
            value={name}
            onChange={(_event, value) => setName(value)}
            messages={messagesFor(error, NAME_KEY) ?? [{ type: 'hint', text: `Shown to administrators only; up to ${ADMIN_TOOL_PRESET_LIMITS.nameLength} characters.` }]}
            inputRef={focus.register(NAME_KEY)}
            isRequired
          />
          <TextArea
            label="Description"
            value={description}
            onChange={(event) => setDescription(event.target.value)}
            messages={messagesFor(error, DESCRIPTION_KEY) ?? [{ type: 'hint', text: `Optional; up to ${ADMIN_TOOL_PRESET_LIMITS.descriptionLength} characters.` }]}
            textareaRef={focus.register(DESCRIPTION_KEY)}
            height="4rem"
          />
          <ToolFields tool={tool} onChange={(change) => setTool((current) => ({ ...current, ...change }))} error={error} focus={focus} disabled={pending} />
          {error !== null && error.key === undefined && (
            <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false}>
              {error.message}
            </Alert>
          )}
          <Flex gap="small" justifyItems="end">
            <Button onClick={() => onDone(null)} interaction={pending ? 'disabled' : 'enabled'}>
              Cancel
            </Button>
            <Button type="submit" color="primary" interaction={pending ? 'disabled' : 'enabled'}>
              {preset === null ? 'Create preset' : 'Save changes'}
            </Button>
          </Flex>
        </Flex>
      </form>
    </View>
  );
}
