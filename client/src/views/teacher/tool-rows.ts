import { fieldKey, type FieldFocus } from '../../lib/form-errors';
import { emptyToolRow, updateRow, withoutRow, type ToolRow } from '../../lib/policy-rows';

/**
 * Editing a list of tools the teacher defines. Focus follows each change: a new tool's name field takes it (it exists
 * after the next render), and a removed tool hands it to the heading of `section`, since its own button is gone.
 */
export function toolRowActions(
  rows: readonly ToolRow[],
  onChange: (rows: ToolRow[]) => void,
  focus: FieldFocus,
  section: 'tools' | 'quizTools',
) {
  return {
    update: (rowId: string, change: Partial<ToolRow>) => onChange(updateRow(rows, rowId, change)),
    /** Adds an empty tool and returns it. */
    add: (): ToolRow => {
      const tool = emptyToolRow();
      onChange([...rows, tool]);
      window.setTimeout(() => focus.focus(fieldKey.toolLabel(tool.rowId)), 0);
      return tool;
    },
    remove: (rowId: string) => {
      onChange(withoutRow(rows, rowId));
      focus.focus(fieldKey.section(section));
    },
  };
}
