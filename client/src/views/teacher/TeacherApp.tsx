import { Link, Pill, Tabs, Text, View } from '@instructure/ui';
import { useState } from 'react';
import { Page } from '../../components/Page';
import { AssessmentsPanel } from './AssessmentsPanel';
import { ConnectPrompt, SessionEnded, useConnection } from './connection';
import { CourseDefaultsPanel } from './CourseDefaultsPanel';
import type { CourseScope } from './model';

const TABS = ['assessments', 'defaults'] as const;
type Tab = (typeof TABS)[number];

export interface TeacherAppProps {
  scope: CourseScope;
  userName: string | undefined;
  lmsReturnUrl: string | undefined;
}

/** The instructor's course: which assessments need the exam browser, with what settings. */
export function TeacherApp({ scope, userName, lmsReturnUrl }: TeacherAppProps) {
  const connection = useConnection();
  const [tab, setTab] = useState<Tab>('assessments');
  const [editing, setEditing] = useState<string | null>(null);
  const openCourseDefaults = () => setTab('defaults');

  const connectionPill =
    connection.connected === undefined ? null : connection.connected ? (
      <Pill color="success" statusLabel="LMS">
        Connected
      </Pill>
    ) : (
      <Pill color="warning" statusLabel="LMS">
        Not connected
      </Pill>
    );

  return (
    <Page title={scope.courseName} headingAside={connectionPill}>
      <Text as="p">
        {userName ? `Signed in as ${userName}, instructor of this course.` : 'Signed in as an instructor of this course.'} Choose
        which quizzes must be taken in the secure exam browser, and what students may open during them.
      </Text>
      {connection.sessionEnded ? (
        <SessionEnded />
      ) : (
        <>
          {connection.connected === false && <ConnectPrompt />}
          <Tabs
            margin="medium 0 0"
            onRequestTabChange={(_event, { index }) => setTab(TABS[index] ?? 'assessments')}
            screenReaderLabel="Exam settings"
          >
            <Tabs.Panel id="tab-assessments" renderTitle="Assessments" isSelected={tab === 'assessments'} padding="medium 0">
              <AssessmentsPanel scope={scope} editing={editing} setEditing={setEditing} onOpenCourseDefaults={openCourseDefaults} />
            </Tabs.Panel>
            <Tabs.Panel id="tab-defaults" renderTitle="Course defaults" isSelected={tab === 'defaults'} padding="medium 0">
              <CourseDefaultsPanel scope={scope} />
            </Tabs.Panel>
          </Tabs>
        </>
      )}
      {lmsReturnUrl !== undefined && (
        <View as="div" margin="medium 0 0">
          <Link href={lmsReturnUrl} target="_top">
            Back to the course in the LMS
          </Link>
        </View>
      )}
    </Page>
  );
}
