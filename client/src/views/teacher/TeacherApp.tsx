import { Link, Pill, Spinner, Tabs, Text, View } from '@instructure/ui';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { i18next } from '../../i18n/i18n';
import { Page } from '../../components/Page';
import { AssessmentsPanel } from './AssessmentsPanel';
import { ConnectPrompt, SessionEnded, useConnection } from './connection';
import { CourseDefaultsPanel, type DefaultsFocusRequest } from './CourseDefaultsPanel';
import { PreExamAlerts } from './PreExamSweep';
import { ExamDayPanel } from './ExamDayPanel';
import type { CourseScope } from './model';

const TABS = ['assessments', 'examDay', 'defaults'] as const;
type Tab = (typeof TABS)[number];

export type CourseRole = 'teacher' | 'teaching-assistant' | 'designer';

export interface TeacherAppProps {
  scope: CourseScope;
  userName: string | undefined;
  courseRole: CourseRole | undefined;
  lmsReturnUrl: string | undefined;
}

/** Who the page greets: the name and the role the person launched with. */
export function greeting(userName: string | undefined, courseRole: CourseRole | undefined): string {
  const role = i18next.t(`teacher:role.${courseRole ?? 'unknown'}`);
  return userName ? i18next.t('teacher:page.greeting', { name: userName, role }) : i18next.t('teacher:page.greetingUnnamed', { role });
}

/** The instructor's course: which assessments need the exam browser, with what settings. */
export function TeacherApp({ scope, userName, courseRole, lmsReturnUrl }: TeacherAppProps) {
  const { t } = useTranslation(['teacher', 'examDay']);
  const connection = useConnection();
  const [tab, setTab] = useState<Tab>('assessments');
  const [editing, setEditing] = useState<string | null>(null);
  const [defaultsFocus, setDefaultsFocus] = useState<DefaultsFocusRequest | null>(null);
  // The link that opens the defaults disappears with its tab, which would drop the keyboard focus: it goes to the
  // field the link asks the teacher to set (the course's exit password).
  const openCourseDefaults = (field?: string) => {
    setTab('defaults');
    if (field !== undefined) setDefaultsFocus({ key: field });
  };

  const connectionPill =
    connection.connected === undefined ? null : connection.connected ? (
      <Pill color="success" statusLabel={t('page.lms')}>
        {t('page.connected')}
      </Pill>
    ) : (
      <Pill color="warning" statusLabel={t('page.lms')}>
        {t('page.notConnected')}
      </Pill>
    );

  return (
    <Page title={scope.courseName} headingAside={connectionPill}>
      <Text as="p">
        {greeting(userName, courseRole)} {t('page.intro')}
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
              <Spinner renderTitle={t('page.checkingConnection')} size="small" />
            </View>
          )}
          {connection.connected === true && <PreExamAlerts />}
          {(connection.connected === true || connection.expired) && <Tabs
            margin="medium 0 0"
            onRequestTabChange={(_event, { index }) => setTab(TABS[index] ?? 'assessments')}
            screenReaderLabel={t('page.tabs')}
          >
            {/* Both panels stay mounted while the other is shown, so a form's unsaved changes survive a look at the
                other tab (a teacher sets the course's exit password halfway through an assessment's settings). */}
            <Tabs.Panel
              id="tab-assessments"
              renderTitle={t('page.assessmentsTab')}
              isSelected={tab === 'assessments'}
              padding="medium 0"
              unmountOnExit={false}
            >
              <AssessmentsPanel scope={scope} editing={editing} setEditing={setEditing} onOpenCourseDefaults={openCourseDefaults} />
            </Tabs.Panel>
            <Tabs.Panel id="tab-exam-day" renderTitle={t('examDay:tab')} isSelected={tab === 'examDay'} padding="medium 0">
              <ExamDayPanel scope={scope} />
            </Tabs.Panel>
            <Tabs.Panel id="tab-defaults" renderTitle={t('page.defaultsTab')} isSelected={tab === 'defaults'} padding="medium 0" unmountOnExit={false}>
              <CourseDefaultsPanel scope={scope} focusRequest={defaultsFocus} />
            </Tabs.Panel>
          </Tabs>}
        </>
      )}
      {lmsReturnUrl !== undefined && (
        <View as="div" margin="medium 0 0">
          <Link href={lmsReturnUrl} target="_top">
            {t('page.backToLms')}
          </Link>
        </View>
      )}
    </Page>
  );
}
