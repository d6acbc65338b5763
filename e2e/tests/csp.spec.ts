// The web app's Content-Security-Policy in Chromium: every screen a creator meets first (landing,
// dashboard, the prompt builder with Monaco and its worker, app billing without Stripe) loads with
// no violation, and the policy is really enforced (an injected inline script is refused and reported). Billing with
// Stripe configured is checked in billing.spec.ts, on the Stripe-configured server.
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { signUp, watchCspViolations } from './support.ts';

test('landing, dashboard, prompt builder (Monaco) and billing load without a CSP violation', async ({ browser }) => {
  const context = await browser.newContext();
  const violations = await watchCspViolations(context);
  const page = await context.newPage();
  try {
    const landing = await page.goto('/');
    const csp = landing?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain('https://js.stripe.com');
    expect(landing?.headers()['x-content-type-options']).toBe('nosniff');
    expect(landing?.headers()['referrer-policy']).toBe('strict-origin-when-cross-origin');
    await expect(page.getByRole('link', { name: 'Sign in' }).first()).toBeVisible();

    await signUp(page);
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();

    await page.goto('/prompt-builder');
    const editor = page.locator('.monaco-editor').first();
    await expect(editor).toBeVisible();
    // Typing makes Monaco use its worker and inject its styles.
    await editor.click();
    await page.keyboard.type(' {{topic}}');
    await expect(editor).toContainText('{{topic}}');
    if (process.env.CSP_SCREENSHOTS_DIR) await page.screenshot({ path: path.join(process.env.CSP_SCREENSHOTS_DIR, 'csp-prompt-builder.png'), fullPage: true });

    await page.goto('/money');
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    await page.waitForLoadState('networkidle');
    expect(violations).toEqual([]);

    // The policy is enforced, and a violation would have been seen: an injected inline script is refused.
    const ran = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true';
      document.head.appendChild(script);
      return (window as { __inlineRan?: boolean }).__inlineRan === true;
    });
    expect(ran).toBe(false);
    await expect.poll(() => violations.join('\n')).toContain('script-src');
  } finally {
    await context.close();
  }
});
