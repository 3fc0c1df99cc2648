import { IconButton, IconEyeLine, IconOffLine, TextInput, type FormMessage } from '@instructure/ui';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export type SecretInputProps = {
  label: ReactNode;
  /** Names the value in the show/hide button ("exit password"). */
  name: string;
  value: string;
  onChange: (value: string) => void;
  messages?: FormMessage[] | undefined;
  disabled?: boolean;
  placeholder?: string;
  maxLength?: number;
  inputRef?: (element: HTMLInputElement | null) => void;
};

/**
 * A password the teacher sets for others (students, proctors), not their own: hidden while typed, with a button to
 * check what was typed, and no password-manager autofill.
 */
export function SecretInput({ label, name, value, onChange, messages, disabled = false, placeholder, maxLength, inputRef }: SecretInputProps) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(false);
  return (
    <TextInput
      renderLabel={label}
      type={shown ? 'text' : 'password'}
      value={value}
      onChange={(_event, next) => onChange(next)}
      messages={messages}
      interaction={disabled ? 'disabled' : 'enabled'}
      placeholder={placeholder}
      maxLength={maxLength}
      autoComplete="new-password"
      spellCheck={false}
      inputRef={inputRef}
      renderAfterInput={
        <IconButton
          size="small"
          withBackground={false}
          withBorder={false}
          screenReaderLabel={shown ? t('secret.hide', { name }) : t('secret.show', { name })}
          renderIcon={shown ? IconOffLine : IconEyeLine}
          onClick={() => setShown((value) => !value)}
          interaction={disabled ? 'disabled' : 'enabled'}
        />
      }
    />
  );
}
