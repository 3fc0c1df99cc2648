import { Link, Tabs, Text, View } from '@instructure/ui';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Page } from '../../components/Page';
import { AuditTrail } from './AuditTrail';
import { CatalogBrowser } from './CatalogBrowser';
import { AdminConnection } from './connection';
import { CourseDetail } from './CourseDetail';
import { CourseList } from './CourseList';
import type { AuthorizationStore } from '../../lib/authorization-store';
import { PresetsPage } from './presets/PresetsPage';
import { RunningExams } from './RunningExams';
import { SummaryHeader } from './SummaryHeader';
import { AdminPreExamAlerts } from './PreExamSweep';

const TABS = ['courses', 'connect', 'presets', 'audit'] as const;
type Tab = (typeof TABS)[number];

export interface AdminAppProps {
  accountName: string;
  userName: string | undefined;
  lmsReturnUrl: string | undefined;
  authorizeUrl: string;
  authorization: AuthorizationStore;
}

/** The root-account administrator's dashboard: summary, connected courses, the catalog to connect more, one course. */
export function AdminApp({ accountName, userName, lmsReturnUrl, authorizeUrl, authorization }: AdminAppProps) {
  const { t } = useTranslation('admin');
  const [tab, setTab] = useState<Tab>('courses');
  const [open, setOpen] = useState<{ id: string; name: string; assessmentId?: string } | null>(null);
  const openers = useRef(new Map<string, HTMLElement>());
  const lmsOrigin = lmsReturnUrl === undefined ? undefined : new URL(lmsReturnUrl).origin;

  const back = () => {
    const id = open?.id;
    setOpen(null);
    // Back where the administrator left: the course they opened.
    window.setTimeout(() => (id !== undefined ? openers.current.get(id)?.focus() : undefined), 0);
  };

  return (
    <Page title={t('app.title', { account: accountName })}>
      <Text as="p">
        {userName ? t('app.signedInAs', { name: userName }) : t('app.signedIn')} {t('app.intro')}
      </Text>
      <AdminConnection store={authorization} authorizeUrl={authorizeUrl}>
        <SummaryHeader />
        <AdminPreExamAlerts />
        {open !== null ? (
          <CourseDetail courseId={open.id} fallbackName={open.name} examDayAssessment={open.assessmentId} onBack={back} />
        ) : (
          <>
            <RunningExams onOpen={(exam) => setOpen({ id: exam.courseId, name: exam.courseName, assessmentId: exam.assessmentId })} />
            <Tabs margin="medium 0 0" onRequestTabChange={(_event, { index }) => setTab(TABS[index] ?? 'courses')} screenReaderLabel={t('app.tabs')}>
              <Tabs.Panel id="tab-courses" renderTitle={t('app.tab.courses')} isSelected={tab === 'courses'} padding="medium 0">
                <CourseList
                  onOpen={(course) => setOpen({ id: course.id, name: course.name })}
                  registerOpener={(id, element) => {
                    if (element) openers.current.set(id, element);
                    else openers.current.delete(id);
                  }}
                />
              </Tabs.Panel>
              <Tabs.Panel id="tab-connect" renderTitle={t('app.tab.connect')} isSelected={tab === 'connect'} padding="medium 0">
                <CatalogBrowser lmsOrigin={lmsOrigin} />
              </Tabs.Panel>
              <Tabs.Panel id="tab-presets" renderTitle={t('app.tab.presets')} isSelected={tab === 'presets'} padding="medium 0">
                <PresetsPage />
              </Tabs.Panel>
              <Tabs.Panel id="tab-audit" renderTitle={t('app.tab.audit')} isSelected={tab === 'audit'} padding="medium 0">
                <AuditTrail />
              </Tabs.Panel>
            </Tabs>
          </>
        )}
      </AdminConnection>
      {lmsReturnUrl !== undefined && (
        <View as="div" margin="medium 0 0">
          <Link href={lmsReturnUrl} target="_top">
            {t('app.backToLms')}
          </Link>
        </View>
      )}
    </Page>
  );
}
