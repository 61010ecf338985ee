import { describe, expect, it } from 'vitest';
import { catalogueKeys, detectLang, setLang, t } from '../src/i18n/index.js';

describe('i18n', () => {
  it('has every key in both languages', () => {
    const { en, zh } = catalogueKeys();
    expect(zh.slice().sort()).toEqual(en.slice().sort());
  });

  it('fills placeholders and switches language at once', () => {
    setLang('en');
    expect(t('retry.line', { reason: 'rate limited', secs: 4, n: 2, max: 5 })).toBe('rate limited, retrying in 4 s (attempt 2 of 5)');
    setLang('zh');
    expect(t('retry.line', { reason: '被限流', secs: 4, n: 2, max: 5 })).toBe('被限流，4 秒后重试（第 2 次，共 5 次）');
    setLang('en');
  });

  it('chooses the language from flag, settings, FEIYU_LANG, then the locale', () => {
    expect(detectLang('zh', 'en', {})).toBe('zh');
    expect(detectLang(undefined, 'zh', { FEIYU_LANG: 'en' })).toBe('zh');
    expect(detectLang(undefined, undefined, { FEIYU_LANG: 'zh', LANG: 'en_US.UTF-8' })).toBe('zh');
    expect(detectLang(undefined, undefined, { LANG: 'zh_CN.UTF-8' })).toBe('zh');
    expect(detectLang(undefined, undefined, { LC_ALL: 'en_US.UTF-8', LANG: 'zh_CN.UTF-8' })).toBe('en');
    expect(detectLang(undefined, undefined, {})).toBe('en');
  });
});
