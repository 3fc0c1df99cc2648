import { Checkbox, Flex, Pill, RadioInput, RadioInputGroup, Text, View } from '@instructure/ui';
import { EXB_POLICY_LIMITS } from '@exb/shared/exb-policy.js';
import { SecretInput } from '../../components/SecretInput';
import { fieldKey, messagesFor, type FieldFocus, type FormError } from './form-errors';

/** Which password, as the save requests and refusals name it: `quit` is the exit password. */
export type PasswordWhich = 'start' | 'quit';

const PASSWORD_TEXT = {
  start: { title: 'Start password', own: 'Start password for this assessment' },
  quit: { title: 'Exit password', own: 'Exit password for this assessment' },
} as const;

interface FieldProps {
  which: PasswordWhich;
  error: FormError | null;
  focus: FieldFocus;
}

/** A password input that shows the refusal of a save about it, or else `hint`, and takes the focus for it. */
function PasswordInput({
  which,
  error,
  focus,
  label,
  name,
  value,
  onChange,
  hint,
  disabled = false,
}: FieldProps & { label: string; name: string; value: string; onChange: (value: string) => void; hint: string; disabled?: boolean }) {
  const key = fieldKey.password(which);
  return (
    <SecretInput
      label={label}
      name={name}
      value={value}
      onChange={onChange}
      disabled={disabled}
      maxLength={EXB_POLICY_LIMITS.passwordLength}
      messages={messagesFor(error, key) ?? [{ type: 'hint', text: hint }]}
      inputRef={focus.register(key)}
    />
  );
}

// ---------------------------------------------------------------------------------------------------------------------
// Course defaults: a password is set, replaced or removed

export interface PasswordDraft {
  readonly value: string;
  readonly remove: boolean;
}

/** `undefined` keeps the stored password, `null` removes it, a string replaces it. */
export function passwordInput(draft: PasswordDraft): string | null | undefined {
  if (draft.remove) return null;
  return draft.value === '' ? undefined : draft.value;
}

export function CoursePasswordField({
  which,
  isSet,
  draft,
  onChange,
  error,
  focus,
}: FieldProps & {
  isSet: boolean;
  draft: PasswordDraft;
  onChange: (draft: PasswordDraft) => void;
}) {
  const title = PASSWORD_TEXT[which].title;
  return (
    <View as="div">
      <Flex gap="x-small" alignItems="center" margin="0 0 x-small">
        <Text weight="bold">{title}</Text>
        <Pill color={isSet ? 'success' : undefined}>{isSet ? 'Set' : 'Not set'}</Pill>
      </Flex>
      <PasswordInput
        which={which}
        error={error}
        focus={focus}
        label={isSet ? `New ${title.toLowerCase()}` : `Set ${which === 'quit' ? 'an' : 'a'} ${title.toLowerCase()}`}
        name={title.toLowerCase()}
        value={draft.value}
        onChange={(value) => onChange({ ...draft, value })}
        disabled={draft.remove}
        hint={isSet ? 'Leave empty to keep the current one.' : 'Printable ASCII characters only.'}
      />
      {isSet && (
        <View as="div" margin="x-small 0 0">
          <Checkbox
            label={`Remove the course ${title.toLowerCase()}`}
            checked={draft.remove}
            onChange={(event) => onChange({ value: '', remove: event.target.checked })}
            size="small"
          />
        </View>
      )}
    </View>
  );
}

// ---------------------------------------------------------------------------------------------------------------------
// An assessment: its password is kept, taken from the course, or its own

export type PasswordMode = 'keep' | 'course' | 'own';

export interface PasswordChoice {
  readonly mode: PasswordMode;
  readonly value: string;
}

export function PasswordChoiceFields({
  which,
  name,
  choice,
  onChange,
  error,
  focus,
}: FieldProps & {
  name: string;
  choice: PasswordChoice;
  onChange: (choice: PasswordChoice) => void;
}) {
  const text = PASSWORD_TEXT[which];
  return (
    <View as="div">
      <RadioInputGroup
        name={name}
        description={text.title}
        value={choice.mode}
        onChange={(_event, value) => onChange({ ...choice, mode: value as PasswordMode })}
        size="small"
      >
        <RadioInput value="keep" label="Keep as it is" />
        <RadioInput value="course" label="Use the course default" />
        <RadioInput value="own" label="Set one for this assessment" />
      </RadioInputGroup>
      {choice.mode === 'own' && (
        <View as="div" margin="small 0 0">
          <PasswordInput
            which={which}
            error={error}
            focus={focus}
            label={text.own}
            name={text.own.toLowerCase()}
            value={choice.value}
            onChange={(value) => onChange({ ...choice, value })}
            hint="Printable ASCII characters only."
          />
        </View>
      )}
    </View>
  );
}
