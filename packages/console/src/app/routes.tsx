import { lazy } from 'react';
import { Route, Routes } from 'react-router';

/**
 * Every page is a lazy chunk: the sign-in page loads without antd or the shell, the shell without
 * the pages. An area adds its pages here and in pages/<area>/; the shell does not change for it.
 */
const SignIn = lazy(() => import('../pages/auth/sign-in'));
const AntdLayout = lazy(() => import('./antd-layout'));
const Consent = lazy(() => import('../pages/oauth/consent'));
const SignedIn = lazy(() => import('./signed-in'));
const Dashboard = lazy(() => import('../pages/dashboard'));
const Unbuilt = lazy(() => import('../pages/unbuilt'));
const Notifications = lazy(() => import('../pages/notifications'));
const Profile = lazy(() => import('../pages/profile'));
const Users = lazy(() => import('../pages/identity/users'));
const UserDetail = lazy(() => import('../pages/identity/users/detail'));
const Roles = lazy(() => import('../pages/identity/roles'));
const Menus = lazy(() => import('../pages/identity/menus'));
const Tenants = lazy(() => import('../pages/identity/tenants'));
const Departments = lazy(() => import('../pages/identity/departments'));
const Positions = lazy(() => import('../pages/identity/positions'));
const UserGroups = lazy(() => import('../pages/identity/groups'));
// public pages: outside the shell, no sign-in (a share link's page, decision 0017)
const SharePage = lazy(() => import('../pages/public/share-page'));

export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={<SignIn />} />
      <Route element={<AntdLayout />}>
        {/* the OAuth authorization endpoint of the discovery document: outside the shell, like sign-in */}
        <Route path="/oauth2/authorize" element={<Consent />} />
        <Route path="/s/:token" element={<SharePage />} />
        <Route path="/" element={<SignedIn />}>
          <Route index element={<Dashboard />} />
          <Route path="notifications" element={<Notifications />} />
          <Route path="profile" element={<Profile />} />
          <Route path="system/users" element={<Users />} />
          <Route path="system/users/:id" element={<UserDetail />} />
          <Route path="system/roles" element={<Roles />} />
          <Route path="system/menus" element={<Menus />} />
          <Route path="platform/tenants" element={<Tenants />} />
          <Route path="system/departments" element={<Departments />} />
          <Route path="system/positions" element={<Positions />} />
          <Route path="system/user-groups" element={<UserGroups />} />
          <Route path="*" element={<Unbuilt />} />
        </Route>
      </Route>
    </Routes>
  );
}
