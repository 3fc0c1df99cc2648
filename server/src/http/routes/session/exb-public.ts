import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Locale } from '@exb/shared/i18n/locale.js';
import { z } from 'zod';
import { ErrorCodes } from '@exb/shared/error-codes.js';
import type { AppContext } from '../../../context.js';
import { SETUP_CHECK_PROOF_ROUTE, SETUP_CHECK_QUIT_ROUTE, SETUP_CHECK_ROUTE, VIDEO_PLAYER_ROUTE } from '@exb/shared/service-paths.js';
import { SETUP_CHECK_CONFIG_FILES, SetupCheck } from '../../../domain/setup-check.js';
import { isVideoId, videoEmbedUrl } from '../../../domain/video-player.js';
import type { ExbCertificate } from '../../../exb/certificate.js';
import { translator } from '../../../i18n/translator.js';
import { clientAddressKey, memoryBudget, RATE_LIMIT_RETRY_AFTER_SECONDS, type AdmissionBudget } from '../../../security/admission-budget.js';
import { requestLocale } from '../../../security/session.js';
import { sendError } from '../../kit/error-body.js';
import { escapeHtml, htmlSecurityHeaders } from '../../../pages/shell.js';
import { staticPage } from '../../../pages/static-page.js';
import { testbedQuitNoticeHead } from '../../../pages/testbed-quit-notice.js';

/**
 * Setup-check downloads per minute. The file is cached, so the budgets only keep one client (or a flood from many)
 * from turning the route into a bandwidth sink; a client's download is a `HEAD` and a `GET`, and a school network
 * behind one address must still fit.
 */
export const SETUP_CHECK_BUDGET_PER_IP = 60;
export const SETUP_CHECK_BUDGET_PER_PROCESS = 1200;
const BUDGET_WINDOW_SECONDS = 60;

const CERTIFICATE_FILE_NAME = 'exb-config-encryption-certificate';

const SETUP_CHECK_REFUSED_MESSAGE =
  'The exam browser did not prove the setup-check configuration at the setup-check page; checks names the check that failed.';

// Lengths far above any real value: a SHA-256 hex hash is 64 characters, a page URL well under a kilobyte.
const checkProofBodySchema = z.object({
  configKeyHash: z.string().min(1).max(256),
  url: z.string().min(1).max(4096),
});

/** Certificate downloads, the setup check and the video player (Document 3): public, no session. */
export async function registerExbPublicRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, shell, exbCertificates } = ctx;
  const setupCheck = new SetupCheck({
    baseUrl: config.baseUrl,
    lmsOrigin: config.lmsUrl,
    certificates: exbCertificates,
  });
  const perIp = memoryBudget({
    name: 'exb-setup-check-ip',
    points: SETUP_CHECK_BUDGET_PER_IP,
    durationSeconds: BUDGET_WINDOW_SECONDS,
  });
  const perProcess = memoryBudget({
    name: 'exb-setup-check-process',
    points: SETUP_CHECK_BUDGET_PER_PROCESS,
    durationSeconds: BUDGET_WINDOW_SECONDS,
  });
  const serviceOrigin = new URL(config.baseUrl).origin;

  const certificateRoutes: { extension: string; type: string; body: (certificate: ExbCertificate) => string | Buffer }[] = [
    { extension: 'pem', type: 'application/x-pem-file', body: (certificate) => certificate.pem },
    { extension: 'cer', type: 'application/pkix-cert', body: (certificate) => certificate.der },
  ];
  for (const route of certificateRoutes) {
    app.get(`/exb/config-encryption-certificate.${route.extension}`, async (_request, reply) => {
      const certificate = exbCertificates.loaded;
      if (certificate === undefined) return reply.callNotFound();
      return reply
        .headers({
          'content-disposition': `attachment; filename=${CERTIFICATE_FILE_NAME}.${route.extension}`,
          'x-exb-public-key-hash': certificate.publicKeyHash,
          'cache-control': 'no-cache',
          'x-content-type-options': 'nosniff',
        })
        .type(route.type)
        .send(route.body(certificate));
    });
  }

  // The contract's `.exb` and Safe Exam Browser's `.seb` name of the same file (`SETUP_CHECK_CONFIG_FILES`).
  for (const file of SETUP_CHECK_CONFIG_FILES) {
    app.get(file.path, async (request, reply) => {
      // The address budget first, so a client that is already refused does not also drain the shared one.
      if (!(await admitted(perIp, clientAddressKey(request.ip))) || !(await admitted(perProcess, 'process'))) {
        return rateLimited(reply);
      }
      const configuration = setupCheck.configuration();
      if (!configuration.available) {
        request.log.warn({ reason: configuration.reason }, 'setup-check configuration refused: certificate not ready');
        return sendError(
          reply.header('cache-control', 'no-store'),
          ErrorCodes.EXB_CERTIFICATE_UNAVAILABLE,
          'The exam browser configuration cannot be provided right now. Tell your LMS administrator.',
        );
      }
      return reply
        .headers({
          'content-disposition': `attachment; filename=${file.fileName}`,
          'content-description': 'File Transfer',
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        })
        .type(file.type.contentType)
        .send(configuration.bytes);
    });
  }

  app.get(SETUP_CHECK_ROUTE.path, async (request, reply) =>
    shell.send(
      reply,
      {
        view: 'exb-setup-check',
        proofUrl: SETUP_CHECK_PROOF_ROUTE.path,
        expectedUrl: setupCheck.pageUrl,
        configUrl: setupCheck.configUrl,
        launchUrl: setupCheck.launchUrl,
        quitUrl: setupCheck.quitUrl,
      },
      { title: translator(requestLocale(request))('launch:setupCheck.title') },
    ),
  );

  app.post(SETUP_CHECK_PROOF_ROUTE.path, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const body = checkProofBodySchema.safeParse(request.body);
    if (!body.success) {
      const problems = body.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`);
      return sendError(reply, ErrorCodes.INVALID_REQUEST, `Invalid request: ${problems.join('; ')}`);
    }
    const checks = setupCheck.check(body.data.configKeyHash, body.data.url);
    if (checks.configKey && checks.expectedUrl) return reply.send({ success: true, checks });
    // The refusal keeps both results, so the setup-check page can still say which check failed.
    return sendError(reply, ErrorCodes.INVALID_EXB_SETUP_CHECK_PROOF, SETUP_CHECK_REFUSED_MESSAGE, { fields: { checks } });
  });

  app.get(SETUP_CHECK_QUIT_ROUTE.path, async (request, reply) => {
    const locale = requestLocale(request);
    const t = translator(locale);
    const html = staticPage(
      locale,
      t('launch:setupCheck.finishedTitle'),
      [t('launch:setupCheck.finishedCloses'), t('launch:setupCheck.finishedStaysOpen')],
      testbedQuitNoticeHead(config),
    );
    return reply
      .headers(htmlSecurityHeaders(config.lmsUrl))
      .headers({ 'x-exb-quit': 'true', 'x-exb-exit': 'setup-check' })
      .type('text/html; charset=utf-8')
      .send(html);
  });

  // A wildcard rather than `:videoId`, so no parameter length limit of the router applies: the contract wants 404 for
  // every id that is not one.
  app.get<{ Params: { '*': string } }>(VIDEO_PLAYER_ROUTE.path, async (request, reply) => {
    const videoId = request.params['*'];
    if (!isVideoId(videoId)) return reply.callNotFound();
    const embedHost = config.exb.videoEmbedHost;
    return reply
      .headers(videoPlayerHeaders(embedHost))
      .type('text/html; charset=utf-8')
      .send(videoPlayerHtml(videoEmbedUrl(embedHost, videoId, serviceOrigin), requestLocale(request)));
  });
}

async function admitted(budget: AdmissionBudget, key: string): Promise<boolean> {
  return (await budget.consume(key)).allowed;
}

function rateLimited(reply: FastifyReply): FastifyReply {
  reply.headers({ 'retry-after': String(RATE_LIMIT_RETRY_AFTER_SECONDS), 'cache-control': 'no-store' });
  return sendError(reply, ErrorCodes.RATE_LIMITED, 'Too many downloads of the setup check. Try again in a minute.');
}

/**
 * Nothing but the one frame may load. The referrer policy is not the service's usual `no-referrer`: the embedding host
 * refuses to play a video without knowing the embedding origin.
 */
function videoPlayerHeaders(embedHost: string): Record<string, string> {
  return {
    'content-security-policy': [
      "default-src 'none'",
      `frame-src ${embedHost}`,
      "style-src 'unsafe-inline'",
      "base-uri 'none'",
      "form-action 'none'",
    ].join('; '),
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
}

function videoPlayerHtml(embedUrl: string, locale: Locale): string {
  const t = translator(locale);
  return (
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(t('launch:video.title'))}</title>` +
    '<style>html,body{margin:0;height:100%;background:#000;overflow:hidden}' +
    'iframe{position:fixed;inset:0;width:100%;height:100%;border:0}</style></head><body>' +
    `<iframe src="${escapeHtml(embedUrl)}" title="${escapeHtml(t('launch:video.player'))}" ` +
    'allow="autoplay; encrypted-media; picture-in-picture; fullscreen" allowfullscreen></iframe>' +
    '</body></html>'
  );
}
