import { Link, Pill, Spinner, Tabs, Text, View } from '@instructure/ui';
import { useState } from 'react';
import { Page } from '../../components/Page';
import { AssessmentsPanel } from './AssessmentsPanel';
import { ConnectPrompt, SessionEnded, useConnection } from './connection';
import { CourseDefaultsPanel } from './CourseDefaultsPanel';
import type { CourseScope } from './model';

const TABS = ['assessments', 'defaults'] as const;
type Tab = (typeof TABS)[number];

export type CourseRole = 'teacher' | 'teaching-assistant' | 'designer';

export interface TeacherAppProps {
  scope: CourseScope;
  userName: string | undefined;
  courseRole: CourseRole | undefined;
  lmsReturnUrl: string | undefined;
}

const ROLE_IN_COURSE: Record<CourseRole | 'unknown', string> = {
  teacher: 'teacher of this course',
  'teaching-assistant': 'teaching assistant in this course',
  designer: 'designer of this course',
  unknown: 'staff member of this course',
};

/** Who the page greets: the name and the role the person launched with. */
export function greeting(userName: string | undefined, courseRole: CourseRole | undefined): string {
  const role = ROLE_IN_COURSE[courseRole ?? 'unknown'];
  return userName ? `Signed in as ${userName}, ${role}.` : `Signed in as a ${role}.`;
}

/** The instructor's course: which assessments need the exam browser, with what settings. */
export function TeacherApp({ scope, userName, courseRole, lmsReturnUrl }: TeacherAppProps) {
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
        {greeting(userName, courseRole)} Choose which quizzes must be taken in the secure exam browser, and what students may
        open during them.
      </Text>
      {connection.sessionEnded ? (
        <SessionEnded />
      ) : (
        <>
          {connection.connected === false && <ConnectPrompt />}
          {/* The course is shown only once the LMS proved who the teacher is and which course this is (the connection
              does both); an expired grant keeps the teacher's place while they authorize again. */}
          {connection.connected === undefined && (
            <View as="div" textAlign="center" padding="large">
              <Spinner renderTitle="Checking the connection to the LMS" size="small" />
            </View>
          )}
          {(connection.connected === true || connection.expired) && <Tabs
            margin="medium 0 0"
            onRequestTabChange={(_event, { index }) => setTab(TABS[index] ?? 'assessments')}
            screenReaderLabel="Exam settings"
          >
            {/* Both panels stay mounted while the other is shown, so a form's unsaved changes survive a look at the
                other tab (a teacher sets the course's exit password halfway through an assessment's settings). */}
            <Tabs.Panel
              id="tab-assessments"
              renderTitle="Assessments"
              isSelected={tab === 'assessments'}
              padding="medium 0"
              unmountOnExit={false}
            >
              <AssessmentsPanel scope={scope} editing={editing} setEditing={setEditing} onOpenCourseDefaults={openCourseDefaults} />
            </Tabs.Panel>
            <Tabs.Panel id="tab-defaults" renderTitle="Course defaults" isSelected={tab === 'defaults'} padding="medium 0" unmountOnExit={false}>
              <CourseDefaultsPanel scope={scope} />
            </Tabs.Panel>
          </Tabs>}
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
