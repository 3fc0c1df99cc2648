import { Tabs } from '@instructure/ui';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface BoardAssessment {
  id: string;
  title: string;
}

/** A board's element ids, from its assessment's content id. */
export const boardIdOf = (contentId: string) => `exam-day-${contentId.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/**
 * A tab per enforced assessment; only the shown tab renders its board, so a page keeps one stream open. Tabs that do
 * not fit scroll (an LMS frame may be 360 px wide).
 */
export function AssessmentBoardTabs({
  assessments,
  initial,
  renderBoard,
}: {
  assessments: readonly BoardAssessment[];
  /** The content id to show first. */
  initial?: string | undefined;
  renderBoard: (assessment: BoardAssessment) => ReactNode;
}) {
  const { t } = useTranslation('examDay');
  const [selected, setSelected] = useState(() => Math.max(0, assessments.findIndex((assessment) => assessment.id === initial)));
  return (
    <Tabs onRequestTabChange={(_event, { index }) => setSelected(index)} screenReaderLabel={t('assessmentTabs')} tabOverflow="scroll" margin="small 0 0">
      {assessments.map((assessment, index) => (
        <Tabs.Panel key={assessment.id} id={boardIdOf(assessment.id)} renderTitle={assessment.title} isSelected={selected === index} padding="small 0">
          {selected === index && renderBoard(assessment)}
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}
