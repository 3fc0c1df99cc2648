import { ScreenReaderContent, Spinner, Table, View } from '@instructure/ui';
import type { ReactNode } from 'react';
import { useMediaQuery } from '../lib/use-media-query';

/** An LMS frame can be narrow: below this width a table becomes one stacked block per row, each value under its column's name. */
export const NARROW_TABLE_QUERY = '(max-width: 44rem)';

export interface TableColumn<Row> {
  readonly id: string;
  /** The column's name, already in the page's language. */
  readonly header: string;
  /**
   * The name is for screen readers only (a column of checkboxes or buttons that name themselves). A stacked table,
   * which prints each column's name before the value, leaves it out.
   */
  readonly headerHidden?: boolean;
  readonly width?: string;
  /** The cell names its row (the course, the quiz): a row header. */
  readonly rowHeader?: boolean;
  readonly textAlign?: 'start' | 'center' | 'end';
  readonly render: (row: Row) => ReactNode;
}

/**
 * A header only screen readers read. A stacked table prints each column's header before the value, and pairs headers
 * with cells by position, skipping a missing one: an empty header keeps the pairs and prints nothing.
 */
function hiddenHeader(header: string, stacked: boolean): ReactNode {
  return stacked ? '' : <ScreenReaderContent>{header}</ScreenReaderContent>;
}

export interface DataTableProps<Row> {
  /** What the table lists, for screen readers. */
  caption: string;
  columns: readonly TableColumn<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  hover?: boolean;
  /** While the rows are read again, the title of the small spinner above the table's end. */
  updating?: string | false;
}

/**
 * A table of rows with a caption and column headers, stacked on narrow frames, with an optional spinner while its
 * rows are read again. The rows stay on screen meanwhile, so the page does not jump.
 */
export function DataTable<Row>({ caption, columns, rows, rowKey, hover = false, updating = false }: DataTableProps<Row>) {
  const narrow = useMediaQuery(NARROW_TABLE_QUERY);
  return (
    <View as="div" position="relative">
      {updating !== false && (
        <View as="div" position="absolute" insetInlineEnd="0" insetBlockStart="-2rem">
          <Spinner renderTitle={updating} size="x-small" />
        </View>
      )}
      <Table caption={caption} layout={narrow ? 'stacked' : 'auto'} hover={hover}>
        <Table.Head>
          <Table.Row>
            {columns.map((column) => (
              <Table.ColHeader key={column.id} id={column.id} width={column.width}>
                {column.headerHidden ? hiddenHeader(column.header, narrow) : column.header}
              </Table.ColHeader>
            ))}
          </Table.Row>
        </Table.Head>
        <Table.Body>
          {rows.map((row) => (
            <Table.Row key={rowKey(row)}>
              {columns.map((column) =>
                column.rowHeader ? (
                  // A row header is a `th`, which browsers centre: it starts where its column's other values do.
                  <Table.RowHeader key={column.id} textAlign={column.textAlign ?? 'start'}>
                    {column.render(row)}
                  </Table.RowHeader>
                ) : (
                  <Table.Cell key={column.id} textAlign={column.textAlign}>
                    {column.render(row)}
                  </Table.Cell>
                ),
              )}
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
    </View>
  );
}
