import { Checkbox, Flex, Pill, RadioInput, RadioInputGroup, Text, View } from '@instructure/ui';
import { EXB_POLICY_LIMITS } from '@exb/shared/exb-policy.js';
import { useTranslation } from 'react-i18next';
import { SecretInput } from '../../components/SecretInput';
import { fieldKey, messagesFor, type FieldFocus, type FormError } from '../../lib/form-errors';

/** Which password, as the save requests and refusals name it: `quit` is the exit password. */
export type PasswordWhich = 'start' | 'quit';

/** The catalogue's words for each password (`teacher:passwords`). */
const PASSWORD_KEYS = {
  start: {
    title: 'passwords.start',
    noun: 'passwords.noun.start',
    own: 'passwords.startOwn',
    ownNoun: 'passwords.noun.startOwn',
    new: 'passwords.newStart',
    set: 'passwords.setStart',
    remove: 'passwords.removeStart',
  },
  quit: {
    title: 'passwords.exit',
    noun: 'passwords.noun.exit',
    own: 'passwords.exitOwn',
    ownNoun: 'passwords.noun.exitOwn',
    new: 'passwords.newExit',
    set: 'passwords.setExit',
    remove: 'passwords.removeExit',
  },
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
  const { t } = useTranslation('teacher');
  const keys = PASSWORD_KEYS[which];
  return (
    <View as="div">
      <Flex gap="x-small" alignItems="center" margin="0 0 x-small">
        <Text weight="bold">{t(keys.title)}</Text>
        <Pill color={isSet ? 'success' : undefined}>{isSet ? t('passwords.set') : t('passwords.notSet')}</Pill>
      </Flex>
      <PasswordInput
        which={which}
        error={error}
        focus={focus}
        label={isSet ? t(keys.new) : t(keys.set)}
        name={t(keys.noun)}
        value={draft.value}
        onChange={(value) => onChange({ ...draft, value })}
        disabled={draft.remove}
        hint={isSet ? t('passwords.keepHint') : t('passwords.asciiHint')}
      />
      {isSet && (
        <View as="div" margin="x-small 0 0">
          <Checkbox
            label={t(keys.remove)}
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
  const { t } = useTranslation('teacher');
  const keys = PASSWORD_KEYS[which];
  return (
    <View as="div">
      <RadioInputGroup
        name={name}
        description={t(keys.title)}
        value={choice.mode}
        onChange={(_event, value) => onChange({ ...choice, mode: value as PasswordMode })}
        size="small"
      >
        <RadioInput value="keep" label={t('passwords.keep')} />
        <RadioInput value="course" label={t('passwords.useCourse')} />
        <RadioInput value="own" label={t('passwords.own')} />
      </RadioInputGroup>
      {choice.mode === 'own' && (
        <View as="div" margin="small 0 0">
          <PasswordInput
            which={which}
            error={error}
            focus={focus}
            label={t(keys.own)}
            name={t(keys.ownNoun)}
            value={choice.value}
            onChange={(value) => onChange({ ...choice, value })}
            hint={t('passwords.asciiHint')}
          />
        </View>
      )}
    </View>
  );
}
